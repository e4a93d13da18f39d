use hexcolor::{mix, Rgb};

#[test]
fn mix_endpoints_and_middle() {
    let black = Rgb { r: 0, g: 0, b: 0 };
    let white = Rgb {
        r: 255,
        g: 255,
        b: 255,
    };
    assert_eq!(mix(black, white, 0.0), black);
    assert_eq!(mix(black, white, 1.0), white);
    assert_eq!(
        mix(black, white, 0.5),
        Rgb {
            r: 128,
            g: 128,
            b: 128
        }
    );
    assert_eq!(mix(black, white, 7.0), white);
}

#[test]
fn display() {
    assert_eq!(
        Rgb {
            r: 30,
            g: 144,
            b: 255
        }
        .to_string(),
        "#1e90ff"
    );
}
