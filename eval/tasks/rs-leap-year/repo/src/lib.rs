//! Proleptic Gregorian calendar arithmetic.

mod weekday;

pub use weekday::{weekday, Weekday};

/// Error for dates that do not exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DateError {
    /// Month outside 1..=12.
    BadMonth(u32),
    /// Day outside 1..=days_in_month.
    BadDay(u32),
}

/// Is `year` a leap year in the Gregorian calendar?
///
/// Years divisible by 4 are leap years, except years divisible by 100,
/// which are leap years only when also divisible by 400.
pub fn is_leap_year(year: i32) -> bool {
    year % 4 == 0
}

/// Number of days in `month` (1..=12) of `year`.
pub fn days_in_month(year: i32, month: u32) -> Result<u32, DateError> {
    Ok(match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => return Err(DateError::BadMonth(month)),
    })
}

/// Day of the year, 1-based: 1 January is 1.
pub fn day_of_year(year: i32, month: u32, day: u32) -> Result<u32, DateError> {
    if day < 1 || day > days_in_month(year, month)? {
        return Err(DateError::BadDay(day));
    }
    let mut total = day;
    for m in 1..month {
        total += days_in_month(year, m)?;
    }
    Ok(total)
}

/// Number of days in `year`.
pub fn days_in_year(year: i32) -> u32 {
    if is_leap_year(year) {
        366
    } else {
        365
    }
}
