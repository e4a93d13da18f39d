use crate::{day_of_year, DateError};

/// Days of the week.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weekday {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

const ORDER: [Weekday; 7] = [
    Weekday::Monday,
    Weekday::Tuesday,
    Weekday::Wednesday,
    Weekday::Thursday,
    Weekday::Friday,
    Weekday::Saturday,
    Weekday::Sunday,
];

/// Weekday of a date, by Zeller-style arithmetic on days since 0001-01-01 (a Monday).
pub fn weekday(year: i32, month: u32, day: u32) -> Result<Weekday, DateError> {
    let y = i64::from(year) - 1;
    let days_before_year = y * 365 + y.div_euclid(4) - y.div_euclid(100) + y.div_euclid(400);
    let n = days_before_year + i64::from(day_of_year(year, month, day)?) - 1;
    Ok(ORDER[n.rem_euclid(7) as usize])
}
