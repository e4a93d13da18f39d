//! Rules about the network: shells bound to sockets, secrets sent away, and decoders whose
//! output is run as code.

use super::category::Category;
use super::paths;
use super::rules::{Hit, has_any, is_interpreter};
use super::wrappers::base_name;

/// Programs that open raw connections (and can carry a shell).
fn is_socket_tool(name: &str) -> bool {
    matches!(
        name,
        "nc" | "ncat"
            | "netcat"
            | "nc.traditional"
            | "nc.openbsd"
            | "socat"
            | "telnet"
            | "cryptcat"
    )
}

/// Programs that send data to another machine.
pub(crate) fn is_sender(argv: &[String]) -> bool {
    argv.first().is_some_and(|p| {
        let name = base_name(p);
        is_socket_tool(name)
            || matches!(
                name,
                "curl"
                    | "wget"
                    | "http"
                    | "https"
                    | "xh"
                    | "scp"
                    | "sftp"
                    | "rsync"
                    | "ftp"
                    | "ssh"
                    | "smbclient"
            )
    })
}

/// Options whose value is read locally and legitimately names a key or credentials file
/// (`scp -i ~/.ssh/id_ed25519`, `curl --netrc-file ~/.netrc`, `-o IdentityFile=…`).
const LOCAL_USE: &[&str] = &[
    "-i",
    "-o",
    "-O",
    "-e",
    "-K",
    "-E",
    "--output",
    "--output-document",
    "--netrc-file",
    "--config",
    "--cacert",
    "--capath",
    "--key",
    "--cert",
    "--rsh",
    "--identity",
];

/// Checks one command for a reverse shell or for secrets sent over the network.
pub(crate) fn check(name: &str, args: &[String]) -> Option<Hit> {
    if matches!(
        name,
        "nc" | "ncat" | "netcat" | "nc.traditional" | "nc.openbsd" | "cryptcat"
    ) && has_any(args, &["--exec", "--sh-exec", "--lua-exec"], "ec")
    {
        return Hit::new(
            Category::ReverseShell,
            format!("`{name} -e` hands a program's input and output to a network peer"),
        );
    }
    if name == "socat" {
        let lower: Vec<String> = args.iter().map(|a| a.to_ascii_lowercase()).collect();
        let runs = lower
            .iter()
            .any(|a| a.starts_with("exec:") || a.starts_with("system:"));
        let net = lower.iter().any(|a| {
            ["tcp", "udp", "ssl", "openssl", "sctp"]
                .iter()
                .any(|p| a.starts_with(p))
        });
        if runs && net {
            return Hit::new(
                Category::ReverseShell,
                "`socat exec:… tcp:…` binds a program to a network socket",
            );
        }
    }
    if is_interpreter(name) || matches!(name, "awk" | "gawk" | "mawk" | "nawk") {
        let code = args.join(" ").to_ascii_lowercase();
        let socket = code.contains("socket") || code.contains("fsockopen");
        let spawns = [
            "dup2",
            "pty.spawn",
            "subprocess",
            "/bin/sh",
            "/bin/bash",
            "exec",
        ]
        .iter()
        .any(|n| code.contains(n));
        if (socket && spawns) || code.contains("/inet/tcp/") || code.contains("/inet/udp/") {
            return Hit::new(
                Category::ReverseShell,
                format!("the `{name}` code connects a shell to a network socket"),
            );
        }
    }
    let argv_is_sender = matches!(
        name,
        "curl" | "wget" | "http" | "https" | "xh" | "scp" | "sftp" | "rsync" | "ftp" | "smbclient"
    ) || is_socket_tool(name);
    if argv_is_sender {
        let mut skip_next = false;
        let candidates: Vec<&String> = args
            .iter()
            .filter(|a| {
                if std::mem::take(&mut skip_next) {
                    return false;
                }
                if LOCAL_USE.contains(&a.as_str()) {
                    skip_next = true;
                    return false;
                }
                !LOCAL_USE
                    .iter()
                    .any(|o| o.starts_with("--") && a.starts_with(&format!("{o}=")))
            })
            .collect();
        let remote_copy = matches!(name, "scp" | "rsync" | "sftp");
        let sent = if remote_copy {
            // Sources are every operand but the last; the last must be remote.
            let ops: Vec<&&String> = candidates.iter().filter(|a| !a.starts_with('-')).collect();
            let remote_target = ops.last().is_some_and(|t| t.contains(':'));
            remote_target
                && ops[..ops.len().saturating_sub(1)]
                    .iter()
                    .any(|a| paths::mentions_secret(a))
        } else {
            candidates.iter().any(|a| {
                paths::mentions_secret(a) || a.contains("$(env)") || a.contains("$(printenv)")
            })
        };
        if sent {
            return Hit::new(
                Category::CredentialExfiltration,
                format!("`{name}` sends a secret (keys, credentials or environment) away"),
            );
        }
    }
    None
}

/// Whether a pipeline stage outputs secrets: reads a key or credentials file, prints the
/// environment, or exports secret keys.
pub(crate) fn reads_secret(argv: &[String]) -> bool {
    let Some(first) = argv.first() else {
        return false;
    };
    let name = base_name(first);
    if is_sender(argv) {
        return false;
    }
    matches!(name, "env" | "printenv")
        || (name == "gpg" && argv.iter().any(|a| a.starts_with("--export-secret")))
        || argv[1..].iter().any(|a| paths::mentions_secret(a))
}

/// Whether a pipeline stage opens a raw connection (so a shell fed by it is remote-controlled).
pub(crate) fn is_socket_stage(argv: &[String]) -> bool {
    argv.first().is_some_and(|p| {
        let name = base_name(p);
        is_socket_tool(name) || (name == "openssl" && argv.iter().any(|a| a == "s_client"))
    })
}

/// Whether `argv` decodes or unpacks its input (so what comes out is not what was shown):
/// `base64 -d`, `xxd -r`, `openssl enc -d`, `gunzip`, `zcat`, `rev`, an interpreter calling
/// `b64decode`, `printf '\x72…'`.
pub(crate) fn is_decoder(argv: &[String]) -> bool {
    let Some(first) = argv.first() else {
        return false;
    };
    let name = base_name(first);
    let args = &argv[1..];
    match name {
        "base64" | "base32" | "basenc" | "gbase64" => has_any(args, &["--decode"], "dD"),
        "xxd" => has_any(args, &["-revert"], "r"),
        "openssl" => {
            args.iter().any(|a| a == "base64" || a == "enc") && args.iter().any(|a| a == "-d")
        }
        "gunzip" | "zcat" | "gzcat" | "bzcat" | "xzcat" | "lzcat" | "zstdcat" | "bunzip2"
        | "unxz" | "unlzma" | "uudecode" | "rev" => true,
        "gzip" | "bzip2" | "xz" | "zstd" | "lzma" => has_any(args, &["--decompress"], "d"),
        "echo" | "printf" => args.iter().any(|a| has_byte_escapes(a)),
        _ if is_interpreter(name) => args.iter().any(|a| {
            let a = a.to_ascii_lowercase();
            a.contains("b64decode")
                || a.contains("decode_base64")
                || a.contains("unpack(")
                || a.contains("from_hex")
                || a.contains("bytes.fromhex")
        }),
        _ => false,
    }
}

/// Whether `text` spells bytes as escapes (`\x72`, `\162`), hiding what it says.
fn has_byte_escapes(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.windows(4).any(|w| {
        w[0] == b'\\'
            && ((w[1] == b'x' && w[2].is_ascii_hexdigit() && w[3].is_ascii_hexdigit())
                || (w[1..].iter().all(|b| (b'0'..=b'7').contains(b))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn decoders() {
        for s in [
            "base64 -d",
            "base64 --decode",
            "xxd -r -p",
            "openssl enc -d -aes-256-cbc",
            "zcat",
            "gzip -dc",
            "printf \\x72\\x6d",
        ] {
            assert!(is_decoder(&words(s)), "{s}");
        }
        for s in ["base64", "gzip -9", "cat", "xxd file", "printf %s\\n"] {
            assert!(!is_decoder(&words(s)), "{s}");
        }
    }

    #[test]
    fn legit_key_use_is_not_exfiltration() {
        for s in [
            "scp -i ~/.ssh/id_ed25519 dist.tar.gz host:/srv",
            "curl --netrc-file ~/.netrc https://api.example.com",
            "rsync -e ssh -i ~/.ssh/id_rsa -a build/ host:/srv",
            "ssh -i ~/.ssh/id_rsa host",
        ] {
            let argv = words(s);
            assert!(check(base_name(&argv[0]), &argv[1..]).is_none(), "{s}");
        }
    }
}
