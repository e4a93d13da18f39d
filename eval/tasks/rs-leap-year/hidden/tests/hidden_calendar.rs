use civil_date::*;

#[test]
fn leap_rules() {
    for (year, leap) in [
        (1600, true),
        (1700, false),
        (1800, false),
        (1900, false),
        (2000, true),
        (2004, true),
        (2100, false),
        (2400, true),
        (1996, true),
        (1999, false),
        (0, true),
        (-4, true),
        (-100, false),
    ] {
        assert_eq!(is_leap_year(year), leap, "year {year}");
    }
}

#[test]
fn february_and_year_lengths() {
    assert_eq!(days_in_month(1900, 2), Ok(28));
    assert_eq!(days_in_month(2000, 2), Ok(29));
    assert_eq!(days_in_year(1900), 365);
    assert_eq!(days_in_year(2000), 366);
}

#[test]
fn day_of_year_across_centuries() {
    assert_eq!(day_of_year(1900, 3, 1), Ok(60));
    assert_eq!(day_of_year(2000, 3, 1), Ok(61));
    assert_eq!(day_of_year(1900, 2, 29), Err(DateError::BadDay(29)));
    assert_eq!(day_of_year(2000, 12, 31), Ok(366));
}

#[test]
fn weekdays_around_1900() {
    assert_eq!(weekday(1900, 3, 1), Ok(Weekday::Thursday));
    assert_eq!(weekday(2000, 3, 1), Ok(Weekday::Wednesday));
    assert_eq!(weekday(2100, 12, 31), Ok(Weekday::Friday));
}
