use civil_date::*;

#[test]
fn ordinary_leap_years() {
    assert!(is_leap_year(2024));
    assert!(!is_leap_year(2023));
}

#[test]
fn century_years() {
    assert!(is_leap_year(2000));
    assert!(!is_leap_year(1900));
    assert!(!is_leap_year(2100));
}

#[test]
fn month_lengths() {
    assert_eq!(days_in_month(2024, 2), Ok(29));
    assert_eq!(days_in_month(2023, 2), Ok(28));
    assert_eq!(days_in_month(2023, 13), Err(DateError::BadMonth(13)));
}

#[test]
fn weekdays() {
    assert_eq!(weekday(2024, 1, 1), Ok(Weekday::Monday));
    assert_eq!(weekday(1969, 7, 20), Ok(Weekday::Sunday));
}
