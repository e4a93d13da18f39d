//! Units and conversions through kelvin.

/// Temperature units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Celsius,
    Fahrenheit,
    Kelvin,
}

impl Unit {
    /// Display symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Celsius => "°C",
            Unit::Fahrenheit => "°F",
            Unit::Kelvin => "K",
        }
    }
}

/// `value` in `unit`, converted to kelvin.
pub fn to_kelvin(value: f64, unit: Unit) -> f64 {
    match unit {
        Unit::Celsius => value + 273.15,
        Unit::Fahrenheit => (value - 32.0) * 5.0 / 9.0 + 273.15,
        Unit::Kelvin => value,
    }
}

/// `kelvin` converted to `unit`.
pub fn from_kelvin(kelvin: f64, unit: Unit) -> f64 {
    match unit {
        Unit::Celsius => kelvin - 273.15,
        Unit::Fahrenheit => (kelvin - 273.15) * 9.0 / 5.0 + 32.0,
        Unit::Kelvin => kelvin,
    }
}
