//! Generated artefacts of the contract: JSON Schemas and the TypeScript package.
//!
//! [`generate`] returns every file with its repository-relative path; `cargo xtask codegen`
//! writes them and `cargo xtask codegen --check` (and a test in this crate) compares them with
//! the committed copies.

use std::collections::HashSet;

use schemars::JsonSchema;
use ts_rs::{Config, TS, TypeVisitor};

use crate::catalogue::EventKind;
use crate::envelope::Event;
use crate::projection::{TimelineEvent, TimelinePayload};

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Path relative to the repository root, with `/` separators.
    pub path: &'static str,
    /// Full contents.
    pub contents: String,
}

/// Every generated file, in a stable order.
pub fn generate() -> Vec<GeneratedFile> {
    vec![
        GeneratedFile {
            path: "schemas/events.schema.json",
            contents: events_schema(),
        },
        GeneratedFile {
            path: "schemas/timeline.schema.json",
            contents: timeline_schema(),
        },
        GeneratedFile {
            path: "schemas/ts/src/contract.ts",
            contents: typescript(),
        },
        GeneratedFile {
            path: "schemas/ts/package.json",
            contents: PACKAGE_JSON.to_owned(),
        },
        GeneratedFile {
            path: "schemas/ts/tsconfig.json",
            contents: TSCONFIG_JSON.to_owned(),
        },
    ]
}

/// Generated files whose committed copy differs from what the code generates now.
///
/// `read` returns a committed file's contents (`None` when missing).
pub fn drift(mut read: impl FnMut(&str) -> Option<String>) -> Vec<Drift> {
    generate()
        .into_iter()
        .filter_map(|file| {
            let committed = read(file.path);
            match committed {
                None => Some(Drift {
                    path: file.path,
                    summary: "missing".to_owned(),
                }),
                Some(text) if text == file.contents => None,
                Some(text) => Some(Drift {
                    path: file.path,
                    summary: diff_summary(&text, &file.contents),
                }),
            }
        })
        .collect()
}

/// A generated file that is out of date.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    /// Repository-relative path.
    pub path: &'static str,
    /// What differs, in a line.
    pub summary: String,
}

fn diff_summary(committed: &str, generated: &str) -> String {
    let old: Vec<&str> = committed.lines().collect();
    let new: Vec<&str> = generated.lines().collect();
    let first = old
        .iter()
        .zip(new.iter())
        .position(|(a, b)| a != b)
        .unwrap_or(old.len().min(new.len()));
    let differing =
        old.iter().zip(new.iter()).filter(|(a, b)| a != b).count() + old.len().abs_diff(new.len());
    format!(
        "{differing} line(s) differ; first at line {} (committed {} lines, generated {} lines)",
        first + 1,
        old.len(),
        new.len()
    )
}

fn schema_json<T: JsonSchema>(id: &str) -> String {
    let schema = schemars::schema_for!(T);
    let mut value = serde_json::to_value(schema).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("$id".to_owned(), id.into());
        if map.contains_key("oneOf") {
            map.insert(
                "discriminator".to_owned(),
                serde_json::json!({ "propertyName": "type" }),
            );
        }
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// JSON Schema (2020-12) of the event envelope, one `$defs` entry per payload.
pub fn events_schema() -> String {
    schema_json::<Event>("https://keel.dev/schemas/events.schema.json")
}

/// JSON Schema (2020-12) of the Activity Timeline projection.
pub fn timeline_schema() -> String {
    schema_json::<TimelineEvent>("https://keel.dev/schemas/timeline.schema.json")
}

/// Collects TypeScript declarations of a type and everything it refers to, once per name
/// (ts-rs declares `serde_json::Value` through a shadow type of the same name).
struct Declarations {
    cfg: Config,
    seen: HashSet<String>,
    /// `(type name, declaration)`; sorted by name before writing, because ts-rs visits
    /// dependencies in an order that changes from one compilation to the next.
    out: Vec<(String, String)>,
}

impl TypeVisitor for Declarations {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        let name = T::name(&self.cfg);
        if T::output_path().is_none() || !self.seen.insert(name.clone()) {
            return;
        }
        let docs = T::docs()
            .map(|d| format!("{}\n", d.trim_end()))
            .unwrap_or_default();
        self.out
            .push((name, format!("{docs}export {}\n", T::decl(&self.cfg))));
        T::visit_dependencies(self);
    }
}

/// The TypeScript package's `index.ts`.
pub fn typescript() -> String {
    let mut decls = Declarations {
        cfg: Config::new().with_large_int("number"),
        seen: HashSet::new(),
        out: Vec::new(),
    };
    decls.visit::<serde_json::Value>();
    decls.visit::<Event>();
    decls.visit::<EventKind>();
    decls.visit::<TimelineEvent>();
    decls.visit::<TimelinePayload>();

    let mut ts = String::from(
        "// Generated by `cargo xtask codegen` from crates/events. Do not edit by hand.\n\n",
    );
    decls.out.sort();
    for (_, decl) in &decls.out {
        ts.push_str(decl);
        ts.push('\n');
    }
    ts.push_str("/** Every event `type` in the catalogue. */\nexport const EVENT_TYPES = [\n");
    for name in EventKind::TYPES {
        ts.push_str(&format!("  \"{name}\",\n"));
    }
    ts.push_str("] as const;\n\n/** An event `type` string. */\nexport type EventType = (typeof EVENT_TYPES)[number];\n\n");
    ts.push_str("/** The payload type carried by events of type `T`. */\nexport type PayloadOf<T extends EventType> = Extract<EventKind, { type: T }>[\"payload\"];\n\n");
    ts.push_str("/** Every Activity Timeline `type`. */\nexport const TIMELINE_TYPES = [\n");
    for name in [
        "agent_phase",
        "tool_call",
        "file_update",
        "self_repair",
        "log",
        "error",
    ] {
        ts.push_str(&format!("  \"{name}\",\n"));
    }
    ts.push_str("] as const;\n\n/** An Activity Timeline `type` string. */\nexport type TimelineType = (typeof TIMELINE_TYPES)[number];\n\n");
    ts.push_str("/** An event of type `T`. */\nexport type EventOf<T extends EventType> = Event & { type: T; payload: PayloadOf<T> };\n\n");
    ts.push_str("/** True when `event` is of type `type`. */\nexport function isEventType<T extends EventType>(event: Event, type: T): event is EventOf<T> {\n  return event.type === type;\n}\n");
    for name in EventKind::TYPES {
        ts.push_str(&format!(
            "\n/** True when `event` is a `{name}` event. */\nexport function {}(event: Event): event is EventOf<\"{name}\"> {{\n  return event.type === \"{name}\";\n}}\n",
            guard_name(name)
        ));
    }
    ts
}

/// `agent.start` → `isAgentStart`, `system.cli_display` → `isSystemCliDisplay`.
fn guard_name(event_type: &str) -> String {
    let mut name = String::from("is");
    for part in event_type.split(['.', '_']) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            name.extend(first.to_uppercase());
            name.push_str(chars.as_str());
        }
    }
    name
}

const PACKAGE_JSON: &str = r#"{
  "name": "@keel/events",
  "version": "0.1.0",
  "description": "Keel's event contract: TypeScript types, JSON Schemas, parseEvent, type guards, the Activity Timeline projection and its 100-record window (generated from crates/events by `cargo xtask codegen`).",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "engines": {
    "node": ">=20"
  },
  "main": "./dist/index.js",
  "types": "./dist/index.d.ts",
  "exports": {
    ".": {
      "types": "./dist/index.d.ts",
      "import": "./dist/index.js"
    },
    "./events.schema.json": "./dist/events.schema.json",
    "./timeline.schema.json": "./dist/timeline.schema.json",
    "./package.json": "./package.json"
  },
  "files": ["dist", "src"],
  "scripts": {
    "build": "node copy-schemas.mjs && tsc -p tsconfig.json",
    "prepack": "npm run build"
  },
  "dependencies": {
    "ajv": "^8.17.1",
    "ajv-formats": "^3.0.1"
  },
  "devDependencies": {
    "typescript": "~5.9.3"
  },
  "sideEffects": false
}
"#;

const TSCONFIG_JSON: &str = r#"{
  "compilerOptions": {
    "target": "ES2022",
    "lib": ["ES2022"],
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "resolveJsonModule": true,
    "strict": true,
    "noUnusedLocals": true,
    "isolatedModules": true,
    "skipLibCheck": false,
    "declaration": true,
    "declarationMap": true,
    "sourceMap": true,
    "rootDir": "src",
    "outDir": "dist",
    "types": []
  },
  "include": ["src"]
}
"#;
