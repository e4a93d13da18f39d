"""Rendering invoices as text."""
from .money import format_amount

LABELS = {
    "en": {"invoice": "Invoice", "to": "Bill to", "total": "Total"},
    "de": {"invoice": "Rechnung", "to": "Rechnungsempfänger", "total": "Gesamt"},
}


def render_invoice(invoice, lang="en"):
    """Render ``invoice`` as text in language ``lang`` ("en" or "de")."""
    labels = LABELS[lang]
    out = [f"{labels['invoice']} {invoice.number}", f"{labels['to']}: {invoice.customer}", ""]
    for line in invoice.lines:
        amount = format_amount(line.total_cents, invoice.currency)
        out.append(f"{line.quantity:>3} x {line.description:<30} {amount:>16}")
    total = format_amount(invoice.total_cents, invoice.currency)
    out.append("")
    out.append(f"{labels['total']}: {total}")
    return "\n".join(out)
