//! Retention on both backends: `oldest_seq` and `prune_events`, which never drops a session's
//! newest event.

use crate::common;

use common::{session, status_events, store_tests};
use keel_store::EventRange;

store_tests! {
    #[tokio::test]
    async fn prune_keeps_the_events_after_the_cut_and_the_newest_one(db, store) {
        session(store.as_ref(), "s").await;
        session(store.as_ref(), "other").await;
        assert_eq!(store.oldest_seq("s").await.unwrap(), 0);
        assert_eq!(store.prune_events("s", 10).await.unwrap(), 0);
        store.append_events(&status_events("s", 10)).await.unwrap();
        store.append_events(&status_events("other", 5)).await.unwrap();
        assert_eq!(store.oldest_seq("s").await.unwrap(), 1);

        assert_eq!(store.prune_events("s", 4).await.unwrap(), 4);
        assert_eq!(store.oldest_seq("s").await.unwrap(), 5);
        assert_eq!(store.count_events("s").await.unwrap(), 6);
        let read = store.read_events("s", EventRange::all()).await.unwrap();
        assert_eq!(read.iter().map(|e| e.seq).collect::<Vec<_>>(), [5, 6, 7, 8, 9, 10]);
        // Pruning again up to the same seq deletes nothing.
        assert_eq!(store.prune_events("s", 4).await.unwrap(), 0);

        // Everything: the newest event stays, so last_seq does not go back.
        assert_eq!(store.prune_events("s", u64::MAX).await.unwrap(), 5);
        assert_eq!(store.oldest_seq("s").await.unwrap(), 10);
        assert_eq!(store.last_seq("s").await.unwrap(), 10);

        // Other sessions are untouched; unknown sessions have nothing to prune.
        assert_eq!(store.count_events("other").await.unwrap(), 5);
        assert_eq!(store.oldest_seq("other").await.unwrap(), 1);
        assert_eq!(store.prune_events("ghost", 100).await.unwrap(), 0);
        assert_eq!(store.oldest_seq("ghost").await.unwrap(), 0);
    }
}
