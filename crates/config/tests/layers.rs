//! The layering: defaults < user file < project file < environment < flags, profiles over their
//! file, origins, and the server file's shape (its `[provider]` table, old spellings).

use std::path::{Path, PathBuf};

use keel_config::{
    Environment, FileConfig, FileLayers, Layer, Origin, Settings, Shape, parse_shaped,
};
use keel_engine::agent::ToolFormat;
use keel_protocol::Mode;

fn layer(origin: Origin, text: &str) -> Layer {
    let parsed = keel_config::parse(Path::new("/conf/keel.toml"), text).unwrap();
    Layer::new(origin, parsed.config, Some(Path::new("/conf")))
}

fn project(text: &str) -> Layer {
    layer(Origin::Project(PathBuf::from("/p/keel.toml")), text)
}

fn user(text: &str) -> Layer {
    layer(Origin::User(PathBuf::from("/u/keel.toml")), text)
}

#[test]
fn each_key_from_the_highest_layer_that_sets_it() {
    let env = Environment {
        model: Some("env-a,env-b".to_owned()),
        ..Environment::default()
    };
    let flags = Layer::new(
        Origin::Flag,
        FileConfig {
            max_iterations: Some(3),
            ..FileConfig::default()
        },
        None,
    );
    let layers = [
        flags,
        env.layer(),
        project("model = 'p'\nmode = 'plan'\nmax_iterations = 5\nwritable_roots = ['a']"),
        user(
            "mode = 'direct'\ntool_format = 'xml'\nwritable_roots = ['b']\n[memory]\ndistill = false",
        ),
    ];
    let (s, origins) = Settings::resolve_with_origins(&layers, None);
    assert_eq!(s.models, ["env-a", "env-b"]);
    assert_eq!(s.mode, Mode::Plan);
    assert_eq!(s.max_iterations, 3);
    assert_eq!(s.tool_format, ToolFormat::Xml);
    assert!(!s.distill_memory);
    assert_eq!(
        s.sandbox.writable_roots,
        [PathBuf::from("a"), PathBuf::from("b")]
    );
    assert_eq!(origins.of("model").describe("model"), "env KEEL_MODEL");
    assert_eq!(
        origins.of("max_iterations").describe("max_iterations"),
        "flag --max-iterations"
    );
    assert_eq!(
        origins.of("mode").describe("mode"),
        "project file /p/keel.toml"
    );
    assert_eq!(
        origins.of("memory.distill").describe("memory.distill"),
        "user file /u/keel.toml"
    );
    assert_eq!(origins.of("approval"), &Origin::Default);
}

#[test]
fn a_relative_script_is_taken_from_the_file_folder() {
    let s = Settings::resolve(&[project("provider = 'scripted:demo.json'")], None);
    assert_eq!(s.provider, "scripted:/conf/demo.json");
}

#[test]
fn a_profile_lies_over_its_files_top_level_and_under_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    let home = dir.path().join("u");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        root.join("keel.toml"),
        "max_iterations = 7\n[profiles.fast]\nmodel = 'small'\n",
    )
    .unwrap();
    std::fs::write(
        home.join("keel.toml"),
        "model = 'big'\nmax_iterations = 9\n[profiles.fast]\nmax_iterations = 2\ntool_format = 'xml'\n",
    )
    .unwrap();
    let user_file = home.join("keel.toml");
    let files = FileLayers::load(&root, Some(&user_file), Some("fast")).unwrap();
    let (s, origins) = Settings::resolve_with_origins(&files.layers, None);
    assert_eq!(s.models, ["small"], "the project's profile");
    assert_eq!(
        s.max_iterations, 7,
        "the project's top level over the user's profile"
    );
    assert_eq!(s.tool_format, ToolFormat::Xml, "the user's profile");
    assert_eq!(
        origins.of("tool_format").describe("tool_format"),
        format!("profile fast in {}", user_file.display())
    );
    let files = FileLayers::load(&root, Some(&user_file), None).unwrap();
    let s = Settings::resolve(&files.layers, None);
    assert_eq!(
        (s.models.as_slice(), s.max_iterations),
        (&["big".to_owned()][..], 7)
    );
    let err = FileLayers::load(&root, Some(&user_file), Some("slow"))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("no profile `slow` in "), "{err}");
    assert!(err.ends_with("(defined: fast)"), "{err}");
}

#[test]
fn the_server_file_takes_keel_toml_keys_in_provider_and_warns_of_old_spellings() {
    let text = "addr = '127.0.0.1:1'\n[provider]\nmodel = 'a, b'\nmax_retries = 4\nmemory_distill = false\n[context]\nmax_messages = 9\n";
    let shape = Shape {
        extra_keys: &["addr"],
        provider_table: true,
        profiles: false,
    };
    let (parsed, extra) = parse_shaped(Path::new("/etc/keel.toml"), text, shape).unwrap();
    assert_eq!(
        parsed.config.model,
        Some(vec!["a".to_owned(), "b".to_owned()])
    );
    assert_eq!(parsed.config.max_retries, Some(4));
    assert_eq!(
        parsed.config.memory.as_ref().and_then(|m| m.distill),
        Some(false)
    );
    assert!(extra.get_ref().contains_key("addr"));
    assert_eq!(
        parsed
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "`[provider] memory_distill` in /etc/keel.toml line 5 is an old spelling: write `[memory] distill` instead (the old one is read until the next release)"
        ]
    );
    let err = parse_shaped(
        Path::new("/etc/keel.toml"),
        "[provider]\nmemory_distill = false\n[memory]\ndistill = true\n",
        shape,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("line 2") && err.contains("keep only `[memory] distill`"),
        "{err}"
    );
    let err = parse_shaped(Path::new("/etc/keel.toml"), "adr = 'x'\n", shape)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "unknown key `adr` in /etc/keel.toml line 1: did you mean `addr`?"
    );
}
