use thermo::stats::{summary, Summary};
use thermo::{Temperature, Unit};

#[test]
fn new_name_works() {
    let t: Temperature = Temperature::new(-40.0, Unit::Celsius);
    assert_eq!(t.to(Unit::Fahrenheit).value(), -40.0);
    assert_eq!(t.unit(), Unit::Celsius);
    let s: Summary = summary(&[t], Unit::Kelvin).unwrap();
    let min: Temperature = s.min;
    assert_eq!(min.value(), 233.2);
    assert_eq!(format!("{}", s.max), "233.2K");
}
