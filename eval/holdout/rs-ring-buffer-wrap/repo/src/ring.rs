/// A ring buffer holding at most `capacity` items; pushing onto a full ring
/// drops the oldest item.
#[derive(Debug, Clone)]
pub struct Ring<T> {
    items: Vec<Option<T>>,
    start: usize,
    len: usize,
}

impl<T> Ring<T> {
    /// An empty ring. Panics if `capacity` is zero.
    pub fn new(capacity: usize) -> Ring<T> {
        assert!(capacity > 0, "capacity must be positive");
        Ring {
            items: (0..capacity).map(|_| None).collect(),
            start: 0,
            len: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.items.len()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Add an item; returns the item that was dropped to make room, if any.
    pub fn push(&mut self, item: T) -> Option<T> {
        let cap = self.capacity();
        if self.len < cap {
            let end = (self.start + self.len) % cap;
            self.items[end] = Some(item);
            self.len += 1;
            None
        } else {
            let dropped = self.items[self.start].replace(item);
            self.start += 1;
            dropped
        }
    }

    /// The oldest item.
    pub fn oldest(&self) -> Option<&T> {
        self.get(0)
    }

    /// The newest item.
    pub fn newest(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    /// The `i`-th item, oldest first.
    pub fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len {
            return None;
        }
        self.items[(self.start + i) % self.capacity()].as_ref()
    }

    /// Items from oldest to newest.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).filter_map(move |i| self.get(i))
    }
}
