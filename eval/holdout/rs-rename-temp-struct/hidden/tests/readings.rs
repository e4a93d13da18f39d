use thermo::stats::summary;
use thermo::{Temperature, Unit};

#[test]
fn conversions() {
    assert_eq!(
        Temperature::new(21.5, Unit::Celsius)
            .to(Unit::Fahrenheit)
            .value(),
        70.7
    );
    assert_eq!(
        Temperature::new(0.0, Unit::Kelvin)
            .to(Unit::Celsius)
            .value(),
        -273.2
    );
    assert_eq!(Temperature::new(20.0, Unit::Celsius).to_string(), "20.0°C");
}

#[test]
fn summaries() {
    let readings = [
        Temperature::new(20.0, Unit::Celsius),
        Temperature::new(77.0, Unit::Fahrenheit),
    ];
    let s = summary(&readings, Unit::Celsius).unwrap();
    assert_eq!(s.min.value(), 20.0);
    assert_eq!(s.max.value(), 25.0);
    assert_eq!(s.mean.value(), 22.5);
    assert!(summary(&[], Unit::Kelvin).is_none());
}
