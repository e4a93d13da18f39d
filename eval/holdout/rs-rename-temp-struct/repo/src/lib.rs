//! Temperature readings: units and statistics.

pub mod convert;
pub mod stats;

pub use convert::Unit;

/// A temperature reading: a value in a unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Temp {
    value: f64,
    unit: Unit,
}

impl Temp {
    /// A reading of `value` in `unit`.
    pub fn new(value: f64, unit: Unit) -> Temp {
        Temp { value, unit }
    }

    /// The numeric value, in this reading's unit.
    pub fn value(&self) -> f64 {
        self.value
    }

    /// The unit of this reading.
    pub fn unit(&self) -> Unit {
        self.unit
    }

    /// The same temperature in another unit, rounded to one decimal.
    pub fn to(self, unit: Unit) -> Temp {
        let kelvin = convert::to_kelvin(self.value, self.unit);
        let value = convert::from_kelvin(kelvin, unit);
        Temp::new((value * 10.0).round() / 10.0, unit)
    }
}

impl std::fmt::Display for Temp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.1}{}", self.value, self.unit.symbol())
    }
}
