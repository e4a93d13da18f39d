//! The Activity Timeline page (`web/dist`), embedded in the binary at build time by `build.rs`,
//! served at `GET /` and `GET /assets/{*path}`.

mod table {
    include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));
}

/// One embedded file of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asset {
    /// The file's contents.
    pub bytes: &'static [u8],
    /// The `Content-Type` to serve it with.
    pub content_type: &'static str,
}

/// The page's entry point, served for `GET /`.
pub const INDEX: &str = "index.html";

/// The embedded file at `path`, relative to the page root (`""` and `"index.html"` are the page;
/// `"assets/x.js"` and, as the `/assets/{*path}` route captures it, `"x.js"` are the same
/// asset). A leading `/` is ignored. `None` for anything else.
pub fn get(path: &str) -> Option<Asset> {
    let path = path.trim_start_matches('/');
    let path = if path.is_empty() { INDEX } else { path };
    lookup(path).or_else(|| {
        if path.starts_with("assets/") {
            None
        } else {
            lookup(&format!("assets/{path}"))
        }
    })
}

/// Paths of every embedded file, relative to the page root.
pub fn paths() -> impl Iterator<Item = &'static str> {
    table::FILES.iter().map(|(name, _, _)| *name)
}

fn lookup(path: &str) -> Option<Asset> {
    table::FILES
        .iter()
        .find(|(name, _, _)| *name == path)
        .map(|(_, content_type, bytes)| Asset {
            bytes,
            content_type,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(asset: Asset) -> String {
        String::from_utf8(asset.bytes.to_vec()).unwrap()
    }

    #[test]
    fn the_root_and_index_html_are_the_page() {
        let root = get("").unwrap();
        assert_eq!(root, get("index.html").unwrap());
        assert_eq!(root, get("/").unwrap());
        assert_eq!(root.content_type, "text/html; charset=utf-8");
        assert!(text(root).contains("<div id=\"root\">"));
    }

    #[test]
    fn every_asset_the_page_references_is_embedded() {
        let page = text(get("").unwrap());
        let referenced: Vec<&str> = page
            .split(['"', '\''])
            .filter(|s| s.starts_with("/assets/"))
            .collect();
        assert!(
            referenced.iter().any(|s| s.ends_with(".js")),
            "no script in {page}"
        );
        for reference in referenced {
            let asset = get(reference).unwrap_or_else(|| panic!("{reference} is not embedded"));
            assert!(!asset.bytes.is_empty());
            // The route `/assets/{*path}` may hand over the path without its `assets/` prefix.
            let bare = reference.trim_start_matches("/assets/");
            assert_eq!(get(bare), Some(asset));
            if reference.ends_with(".js") {
                assert_eq!(asset.content_type, "text/javascript; charset=utf-8");
            }
        }
    }

    #[test]
    fn unknown_paths_are_none() {
        assert_eq!(get("nope.js"), None);
        assert_eq!(get("../Cargo.toml"), None);
        assert_eq!(get("assets/../index.html"), None);
        assert!(paths().any(|p| p == INDEX));
    }
}
