//! `keel mcp add` and `keel mcp remove`: editing `[mcp_servers.NAME]` in a `keel.toml` with
//! `toml_edit`, keeping the file's comments and layout.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use keel_mcp::{ServerConfig, ServerSpec};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, value};

use super::{AddArgs, RemoveArgs};
use crate::commands::EXIT_USAGE;
use keel_config::{CONFIG_FILE, Environment};

/// Why an edit was not made.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum EditError {
    /// The request itself is wrong (exit 2).
    Usage(String),
    /// The file or the name is not as the request needs (exit 1).
    Failed(String),
}

/// The server `args` describe.
fn server_config(args: &AddArgs) -> Result<ServerConfig, EditError> {
    let mut config = ServerConfig::default();
    match (&args.url, args.command.split_first()) {
        (Some(url), None) => config.url = Some(url.clone()),
        (None, Some((command, rest))) => {
            config.command = Some(command.clone());
            config.args = rest.to_vec();
        }
        (Some(_), Some(_)) => {
            return Err(EditError::Usage(
                "give either --url or a command after `--`, not both".to_owned(),
            ));
        }
        (None, None) => {
            return Err(EditError::Usage(
                "give the server's command after `--` (e.g. `keel mcp add NAME -- npx -y PACKAGE`) or --url URL".to_owned(),
            ));
        }
    }
    for pair in &args.env {
        let Some((key, val)) = pair.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
            return Err(EditError::Usage(format!(
                "--env `{pair}`: expected NAME=value"
            )));
        };
        config.env.insert(key.trim().to_owned(), val.to_owned());
    }
    for pair in &args.headers {
        let Some((key, val)) = pair.split_once(':').filter(|(k, _)| !k.trim().is_empty()) else {
            return Err(EditError::Usage(format!(
                "--header `{pair}`: expected Name:value"
            )));
        };
        config
            .headers
            .insert(key.trim().to_owned(), val.trim().to_owned());
    }
    if config.url.is_some() && !config.env.is_empty() {
        return Err(EditError::Usage(
            "--env is for command servers; use --header with --url".to_owned(),
        ));
    }
    ServerSpec::new(&args.name, &config).map_err(|e| EditError::Usage(e.to_string()))?;
    Ok(config)
}

/// `text` (a keel.toml) with server `name` added as `config`.
pub(super) fn add_to(text: &str, name: &str, config: &ServerConfig) -> Result<String, EditError> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| EditError::Failed(format!("not valid TOML: {e}")))?;
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = Table::new();
            table.set_implicit(true);
            Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(|| EditError::Failed("`mcp_servers` is not a table".to_owned()))?;
    if servers.contains_key(name) {
        return Err(EditError::Failed(format!(
            "an MCP server named `{name}` is already configured; remove it first (`keel mcp remove {name}`)"
        )));
    }
    let mut table = Table::new();
    if let Some(command) = &config.command {
        table.insert("command", value(command.as_str()));
        if !config.args.is_empty() {
            let args: Array = config.args.iter().map(String::as_str).collect();
            table.insert("args", value(args));
        }
        if !config.env.is_empty() {
            let mut env = InlineTable::new();
            for (k, v) in &config.env {
                env.insert(k, v.as_str().into());
            }
            table.insert("env", value(env));
        }
    }
    if let Some(url) = &config.url {
        table.insert("url", value(url.as_str()));
        if !config.headers.is_empty() {
            let mut headers = InlineTable::new();
            for (k, v) in &config.headers {
                headers.insert(k, v.as_str().into());
            }
            table.insert("headers", value(headers));
        }
    }
    servers.insert(name, Item::Table(table));
    Ok(doc.to_string())
}

/// `text` without server `name`; `None` when it has no such server.
pub(super) fn remove_from(text: &str, name: &str) -> Result<Option<String>, EditError> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| EditError::Failed(format!("not valid TOML: {e}")))?;
    let Some(servers) = doc.get_mut("mcp_servers").and_then(Item::as_table_like_mut) else {
        return Ok(None);
    };
    if servers.remove(name).is_none() {
        return Ok(None);
    }
    if servers.is_empty() {
        doc.remove("mcp_servers");
    }
    Ok(Some(doc.to_string()))
}

fn project_file(root: &Path) -> PathBuf {
    root.join(CONFIG_FILE)
}

fn user_file() -> Result<PathBuf, EditError> {
    Environment::from_process()
        .user_config_file()
        .ok_or_else(|| {
            EditError::Failed(
                "the user's config folder is unknown (set KEEL_CONFIG_DIR)".to_owned(),
            )
        })
}

fn read(path: &Path) -> Result<String, EditError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(EditError::Failed(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

/// Writes `text` to `path` through a temporary file, so a failure leaves the old file whole.
fn write(path: &Path, text: &str) -> Result<(), EditError> {
    let fail =
        |e: std::io::Error| EditError::Failed(format!("cannot write {}: {e}", path.display()));
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, text).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

fn exit(command: &str, error: EditError) -> ExitCode {
    match error {
        EditError::Usage(message) => {
            eprintln!("keel mcp {command}: {message}");
            ExitCode::from(EXIT_USAGE)
        }
        EditError::Failed(message) => {
            eprintln!("keel mcp {command}: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `keel mcp add`.
pub(super) fn add(args: &AddArgs) -> ExitCode {
    let outcome = (|| {
        let config = server_config(args)?;
        let path = if args.user {
            user_file()?
        } else {
            project_file(&args.root)
        };
        let text = read(&path)?;
        let edited = add_to(&text, &args.name, &config).map_err(|e| match e {
            EditError::Failed(m) => EditError::Failed(format!("{}: {m}", path.display())),
            usage => usage,
        })?;
        write(&path, &edited)?;
        Ok(path)
    })();
    match outcome {
        Ok(path) => {
            println!("Added MCP server `{}` to {}.", args.name, path.display());
            ExitCode::SUCCESS
        }
        Err(e) => exit("add", e),
    }
}

/// `keel mcp remove`.
pub(super) fn remove(args: &RemoveArgs) -> ExitCode {
    let outcome = (|| {
        let mut files = Vec::new();
        if !args.user {
            files.push(project_file(&args.root));
        }
        if !args.project {
            files.push(user_file()?);
        }
        for path in &files {
            let text = read(path)?;
            if let Some(edited) = remove_from(&text, &args.name).map_err(|e| match e {
                EditError::Failed(m) => EditError::Failed(format!("{}: {m}", path.display())),
                usage => usage,
            })? {
                write(path, &edited)?;
                return Ok(path.clone());
            }
        }
        let searched: Vec<_> = files.iter().map(|p| p.display().to_string()).collect();
        Err(EditError::Failed(format!(
            "no MCP server named `{}` in {}",
            args.name,
            searched.join(" or ")
        )))
    })();
    match outcome {
        Ok(path) => {
            println!(
                "Removed MCP server `{}` from {}.",
                args.name,
                path.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => exit("remove", e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMENTED: &str = r#"# Keel settings for this project.
model = "gpt-4.1"   # the default model

# Ask before anything dangerous.
approval = "on-dangerous"

[memory]
distill = false # keep memory by hand
"#;

    fn stdio(command: &str, args: &[&str]) -> ServerConfig {
        ServerConfig {
            command: Some(command.to_owned()),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            ..ServerConfig::default()
        }
    }

    #[test]
    fn add_keeps_comments_and_layout() {
        let mut config = stdio("npx", &["-y", "@modelcontextprotocol/server-github"]);
        config
            .env
            .insert("GITHUB_TOKEN".into(), "$GITHUB_TOKEN".into());
        let once = add_to(COMMENTED, "github", &config).unwrap();
        let twice = add_to(
            &once,
            "docs",
            &ServerConfig {
                url: Some("https://example.com/mcp".into()),
                headers: [("X-Team".to_owned(), "keel".to_owned())].into(),
                ..ServerConfig::default()
            },
        )
        .unwrap();
        insta::assert_snapshot!(twice);
        // The edited file reads back as the servers added.
        let parsed = keel_config::parse(Path::new("keel.toml"), &twice)
            .unwrap()
            .config;
        assert_eq!(parsed.mcp_servers["github"], config);
        assert_eq!(parsed.model, Some(vec!["gpt-4.1".to_owned()]));
    }

    #[test]
    fn remove_leaves_the_rest_as_it_was() {
        let added = add_to(COMMENTED, "github", &stdio("srv", &[])).unwrap();
        let removed = remove_from(&added, "github").unwrap().unwrap();
        assert_eq!(removed, COMMENTED);
        assert_eq!(remove_from(COMMENTED, "github").unwrap(), None);
    }

    #[test]
    fn a_taken_name_or_bad_toml_is_refused() {
        let added = add_to(COMMENTED, "github", &stdio("srv", &[])).unwrap();
        let taken = add_to(&added, "github", &stdio("other", &[])).unwrap_err();
        assert!(matches!(taken, EditError::Failed(m) if m.contains("already configured")));
        let bad = add_to("model = [", "x", &stdio("srv", &[])).unwrap_err();
        assert!(matches!(bad, EditError::Failed(m) if m.contains("not valid TOML")));
    }
}
