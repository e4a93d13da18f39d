use ringlog::{tail, Ring};

#[test]
fn dropped_items_in_order() {
    let mut r = Ring::new(2);
    r.push("a");
    r.push("b");
    assert_eq!(r.push("c"), Some("a"));
    assert_eq!(r.push("d"), Some("b"));
    assert_eq!(r.push("e"), Some("c"));
    assert_eq!(r.push("f"), Some("d"));
    assert_eq!(r.iter().copied().collect::<Vec<_>>(), vec!["e", "f"]);
    assert_eq!(r.len(), 2);
}

#[test]
fn many_wraps() {
    for cap in 1..6 {
        let mut r = Ring::new(cap);
        for i in 0..100 {
            r.push(i);
            let want: Vec<i32> = ((i + 1 - (cap as i32).min(i + 1))..=i).collect();
            assert_eq!(
                r.iter().copied().collect::<Vec<_>>(),
                want,
                "cap {cap} after {i}"
            );
            assert_eq!(r.newest(), Some(&i));
            assert_eq!(r.get(r.len()), None);
        }
    }
}

#[test]
fn tail_edges() {
    assert_eq!(tail("", 3), Vec::<String>::new());
    assert_eq!(tail("x\ny", 5), vec!["x", "y"]);
    assert_eq!(tail("x\ny", 0), Vec::<String>::new());
    assert_eq!(tail("1\n2\n3\n4\n5\n6\n7", 1), vec!["7"]);
}
