//! The rendered map never exceeds its token budget, whatever the repository and budget.

use keel_repomap::{MapOptions, MapRequest, RepoMap, count_tokens};
use proptest::prelude::*;

fn write_project(files: &[Vec<(String, u8)>]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (index, functions) in files.iter().enumerate() {
        let mut text = String::new();
        for (name, arity) in functions {
            let params: Vec<String> = (0..*arity).map(|i| format!("p{i}: u32")).collect();
            text.push_str(&format!(
                "/// Does {name}.\npub fn {name}({}) -> u32 {{ 0 }}\n\n",
                params.join(", ")
            ));
        }
        // Reference the previous file's functions so the graph has edges.
        if index > 0 {
            text.push_str("fn caller() {\n");
            for (name, _) in &files[index - 1] {
                text.push_str(&format!("    {name}();\n"));
            }
            text.push_str("}\n");
        }
        std::fs::write(dir.path().join(format!("file_{index}.rs")), text).unwrap();
    }
    dir
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn never_over_budget(
        files in prop::collection::vec(
            prop::collection::vec(("[a-z][a-z_]{0,30}", 0u8..8), 1..20),
            1..8,
        ),
        budget in 0usize..600,
    ) {
        let dir = write_project(&files);
        let options = MapOptions { use_cache: false, ..MapOptions::default() };
        let mut map = RepoMap::open(dir.path(), options).unwrap();
        map.refresh().unwrap();
        let request = MapRequest { token_budget: budget, ..MapRequest::default() };
        let rendered = map.render(&request);
        prop_assert!(rendered.tokens as usize <= budget);
        prop_assert_eq!(count_tokens(&rendered.text), rendered.tokens as usize);
        if budget >= 200 {
            prop_assert!(rendered.symbols_shown > 0);
        }
    }
}
