from dataclasses import dataclass, field


@dataclass
class Line:
    description: str
    quantity: int
    unit_cents: int

    @property
    def total_cents(self):
        return self.quantity * self.unit_cents


@dataclass
class Invoice:
    number: str
    customer: str
    lines: list = field(default_factory=list)
    currency: str = "EUR"

    @property
    def total_cents(self):
        return sum(line.total_cents for line in self.lines)
