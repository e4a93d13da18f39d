use crate::Rgb;

/// Linear blend of two colours: `t = 0.0` gives `a`, `t = 1.0` gives `b`.
/// `t` is clamped to `0.0..=1.0`; channels are rounded to the nearest integer.
pub fn mix(a: Rgb, b: Rgb, t: f64) -> Rgb {
    let t = t.clamp(0.0, 1.0);
    let ch = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * t).round() as u8;
    Rgb {
        r: ch(a.r, b.r),
        g: ch(a.g, b.g),
        b: ch(a.b, b.b),
    }
}
