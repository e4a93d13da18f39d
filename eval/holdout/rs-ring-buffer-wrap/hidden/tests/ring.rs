use ringlog::{tail, Ring};

#[test]
fn fills_up() {
    let mut r = Ring::new(3);
    assert_eq!(r.push(1), None);
    assert_eq!(r.push(2), None);
    assert_eq!(r.iter().copied().collect::<Vec<_>>(), vec![1, 2]);
}

#[test]
fn keeps_the_newest_items() {
    let mut r = Ring::new(3);
    for i in 1..=10 {
        r.push(i);
    }
    assert_eq!(r.iter().copied().collect::<Vec<_>>(), vec![8, 9, 10]);
    assert_eq!(r.oldest(), Some(&8));
    assert_eq!(r.newest(), Some(&10));
}

#[test]
fn tail_lines() {
    assert_eq!(tail("a\nb\nc\nd", 2), vec!["c", "d"]);
}
