"""invoicer: plain-text invoices."""
