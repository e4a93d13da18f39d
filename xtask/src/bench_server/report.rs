//! The benchmark's Markdown report.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::server::Memory;
use super::stats::Spread;
use super::{fanout, idle, multi, persist};

/// Delivery latency the fan-out figure aims for (p99), ms.
const LATENCY_TARGET_MS: f64 = 50.0;

/// Everything measured, and the machine's conditions.
#[derive(Debug)]
pub struct Report {
    binary: PathBuf,
    /// Flags the server was started with beyond the benchmark's own.
    server_args: Vec<String>,
    subscribers: usize,
    started: String,
    load_start: String,
    load_end: String,
    /// Figure 1, one per run.
    pub fanout: Vec<fanout::Report>,
    /// The fan-out script's pause before each streamed item, ms.
    pub fanout_delay_ms: Option<u64>,
    /// Figure 2, one row per store.
    pub persist: Vec<persist::Report>,
    /// Figure 3.
    pub idle: Option<idle::Report>,
    /// Figure 4.
    pub multi: Option<multi::Report>,
    /// Figure 4's turn: deltas, and ms before each.
    pub multi_script: (usize, u64),
    /// Skipped parts and other remarks.
    pub notes: Vec<String>,
}

impl Report {
    /// An empty report; the load average is read now.
    pub fn new(binary: &Path, server_args: &[String], subscribers: usize) -> Self {
        Self {
            binary: binary.to_owned(),
            server_args: server_args.to_vec(),
            subscribers,
            started: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
            load_start: load_average(),
            load_end: String::new(),
            fanout: Vec::new(),
            fanout_delay_ms: None,
            persist: Vec::new(),
            idle: None,
            multi: None,
            multi_script: (0, 0),
            notes: Vec::new(),
        }
    }

    /// Records the load average at the end.
    pub fn finish(&mut self) {
        self.load_end = load_average();
    }

    /// The report as Markdown.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let cpus = std::thread::available_parallelism().map_or(0, usize::from);
        let _ = writeln!(out, "# keel-server benchmark\n");
        let flags = if self.server_args.is_empty() {
            String::new()
        } else {
            format!(" `{}`", self.server_args.join(" "))
        };
        let _ = writeln!(
            out,
            "{} · binary `{}`{flags} · {cpus} CPU(s), client and server on the same machine · \
             load average (1/5/15 min) {} at start, {} at end\n",
            self.started,
            self.binary.display(),
            self.load_start,
            self.load_end
        );
        out.push_str(&self.sections());
        out
    }

    /// The measured figures, without the machine's conditions.
    fn sections(&self) -> String {
        let mut out = String::new();
        if let Some(f) = self.median_fanout() {
            self.write_fanout(&mut out, f);
        }
        if !self.persist.is_empty() {
            write_persist(&mut out, &self.persist);
        }
        if let Some(i) = &self.idle {
            write_idle(&mut out, i);
        }
        if let Some(m) = &self.multi {
            write_multi(&mut out, m, self.multi_script);
        }
        for note in &self.notes {
            let _ = writeln!(out, "- {note}");
        }
        out
    }

    /// The fan-out run with the median p99 latency (the lower middle one of an even count).
    fn median_fanout(&self) -> Option<&fanout::Report> {
        let mut runs: Vec<&fanout::Report> = self.fanout.iter().collect();
        runs.sort_by(|a, b| {
            let p99 = |r: &fanout::Report| r.latency.map_or(f64::INFINITY, |l| l.p99);
            p99(a).total_cmp(&p99(b))
        });
        runs.get(runs.len().saturating_sub(1) / 2).copied()
    }

    fn write_runs(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "\nEvery run ({} of them, each on a fresh server; the table above is the one with \
             the median p99):\n\n\
             | run | latency p50 / p99 / max (ms) | p99 ≤ 50 ms | lost | delivered events/s |\n\
             |---:|---|---|---:|---:|",
            self.fanout.len()
        );
        for (i, f) in self.fanout.iter().enumerate() {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {:.0} |",
                i + 1,
                spread(f.latency),
                if f.latency.is_some_and(|l| l.p99 <= LATENCY_TARGET_MS) {
                    "yes"
                } else {
                    "no"
                },
                f.check.missing,
                f.events_per_sec()
            );
        }
    }

    fn write_fanout(&self, out: &mut String, f: &fanout::Report) {
        let _ = writeln!(
            out,
            "## 1. Fan-out: {} SSE subscribers on one session, scripted run\n",
            self.subscribers
        );
        if let Some(delay) = self.fanout_delay_ms {
            let _ = writeln!(
                out,
                "Script `xtask/bench-scripts/server-fanout.json`, {delay} ms before each streamed \
                 item (4-character deltas).\n"
            );
        }
        let _ = writeln!(out, "| figure | value |\n|---|---|");
        let mut row = |name: &str, value: String| {
            let _ = writeln!(out, "| {name} | {value} |");
        };
        row(
            "turn",
            match &f.turn.1 {
                Some(error) => format!("{} ({error})", f.turn.0),
                None => f.turn.0.clone(),
            },
        );
        row(
            "events in the run",
            format!(
                "{} (seq {}–{}; JSON pages return {})",
                f.events(),
                f.seqs.0,
                f.seqs.1,
                f.read_back
            ),
        );
        row(
            "subscribers connected",
            format!(
                "{} of {} in {:.2} s",
                f.connected, f.subscribers, f.connect_secs
            ),
        );
        row(
            "deliveries",
            format!(
                "{} (expected {})",
                f.deliveries,
                f.events() * f.subscribers as u64
            ),
        );
        row(
            "lost (missing)",
            format!(
                "{} · duplicates {} · out of order {} · outside the run {} · clean subscribers {} of {}",
                f.check.missing,
                f.check.duplicates,
                f.check.out_of_order,
                f.check.unexpected,
                f.clean_subscribers,
                f.subscribers
            ),
        );
        row(
            "delivered events/s",
            format!(
                "{:.0} (turn start → last receipt {:.2} s)",
                f.events_per_sec(),
                f.run_secs
            ),
        );
        row("latency ts → receipt (ms)", spread(f.latency));
        row(
            "p99 ≤ 50 ms",
            match f.latency {
                Some(l) if l.p99 <= LATENCY_TARGET_MS => "yes".to_owned(),
                Some(_) => "**no**".to_owned(),
                None => "no data".to_owned(),
            },
        );
        row("spread vs first subscriber (ms)", spread(f.spread));
        row(
            "server memory",
            format!(
                "RSS {} before subscribers, {} all connected, {} after the run; peak {}",
                mib(f.memory_start.rss_kib),
                mib(f.memory_connected.rss_kib),
                mib(f.memory_end.rss_kib),
                mib(f.memory_end.hwm_kib)
            ),
        );
        row(
            "CPU during the run",
            format!(
                "server {:.2} s, bench client {:.2} s, in {:.2} s wall ({} CPUs)",
                f.server_cpu_secs,
                f.client_cpu_secs,
                f.window_secs,
                std::thread::available_parallelism().map_or(0, usize::from)
            ),
        );
        for (error, count) in f.connect_errors.iter().take(5) {
            row("connect error", format!("{count} × {error}"));
        }
        for (notice, count) in f.notices.iter().take(5) {
            row("stream notice", format!("{count} × {notice}"));
        }
        let _ = writeln!(
            out,
            "\nSlowest events (median latency over the subscribers):\n\n\
             | seq | type | latency p50 / p99 / max (ms) |\n|---:|---|---|"
        );
        for (seq, kind, s) in &f.slowest {
            let _ = writeln!(
                out,
                "| {seq} | {kind} | {:.1} / {:.1} / {:.1} |",
                s.p50, s.p99, s.max
            );
        }
        if self.fanout.len() > 1 {
            self.write_runs(out);
        }
        let _ = writeln!(
            out,
            "\nts has millisecond precision (±1 ms); spread uses the client's µs clock only.\n"
        );
    }
}

fn write_persist(out: &mut String, rows: &[persist::Report]) {
    let _ = writeln!(out, "## 2. Events persisted through the server\n");
    let _ = writeln!(
        out,
        "| store | turn | events (by seq) | read back | turn start → final event (s) | events/s |\n\
         |---|---|---:|---:|---:|---:|"
    );
    for r in rows {
        let turn = match &r.turn.1 {
            Some(error) => format!("{} ({error})", r.turn.0),
            None => r.turn.0.clone(),
        };
        let _ = writeln!(
            out,
            "| {} | {turn} | {} | {} | {:.2} | {:.0} |",
            r.store,
            r.events,
            r.read_back,
            r.wall_secs,
            r.events_per_sec()
        );
    }
    let ends: Vec<String> = rows
        .iter()
        .map(|r| format!("{}: {}", r.store, r.end_from))
        .collect();
    let _ = writeln!(out, "\nEnd observed by {}.\n", ends.join("; "));
}

fn write_idle(out: &mut String, i: &idle::Report) {
    let _ = writeln!(out, "## 3. Memory per idle session\n");
    let _ = writeln!(
        out,
        "| measure | count | RSS before | RSS after | per item |\n|---|---:|---:|---:|---:|"
    );
    let per = |before: Memory, after: Memory, count: usize| {
        let delta = after.rss_kib as f64 - before.rss_kib as f64;
        format!("{:.1} KiB", delta / count.max(1) as f64)
    };
    let _ = writeln!(
        out,
        "| idle sessions (created in {:.2} s) | {} | {} | {} | {} |",
        i.create_secs,
        i.sessions,
        mib(i.base.rss_kib),
        mib(i.with_sessions.rss_kib),
        per(i.base, i.with_sessions, i.sessions)
    );
    let _ = writeln!(
        out,
        "| + one idle SSE subscriber each | {} | {} | {} | {} |",
        i.subscribers,
        mib(i.with_sessions.rss_kib),
        mib(i.with_subscribers.rss_kib),
        per(i.with_sessions, i.with_subscribers, i.subscribers)
    );
    let _ = writeln!(out, "\nPeak RSS {}.\n", mib(i.with_subscribers.hwm_kib));
}

fn spread(value: Option<Spread>) -> String {
    value.map_or("no data".to_owned(), |s| {
        format!("p50 {:.1} · p99 {:.1} · max {:.1}", s.p50, s.p99, s.max)
    })
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "?".to_owned())
}

fn write_multi(out: &mut String, m: &multi::Report, (deltas, delay_ms): (usize, u64)) {
    let _ = writeln!(
        out,
        "\n## 4. Many instances: {} instances on one PostgreSQL database, {} SSE subscribers \
         spread across them\n\n\
         One turn of {deltas} deltas, {delay_ms} ms apart, run on instance 0 (which writes the \
         session; the others relay through LISTEN/NOTIFY). Turn: {}{}. Events {} (JSON pages \
         return {}), **stored {:.0} events/s** (first to last stored event {:.2} s). All \
         subscribers connected in {:.1} s; turn start → last receipt {:.1} s. **Lost: {}**.\n\n\
         | instance | subscribers (connected) | deliveries | lost | duplicates | latency p50 / p99 / max (ms) |\n\
         |---|---:|---:|---:|---:|---|",
        m.instances.len(),
        m.subscribers(),
        m.turn.0,
        m.turn
            .1
            .as_ref()
            .map_or(String::new(), |e| format!(" ({e})")),
        m.events,
        m.read_back,
        m.stored_per_sec(),
        m.store_secs,
        m.connect_secs,
        m.run_secs,
        m.lost()
    );
    for (n, instance) in m.instances.iter().enumerate() {
        let _ = writeln!(
            out,
            "| {n}{} | {} ({}) | {} | {} | {} | {} |",
            if instance.writer { " (writer)" } else { "" },
            instance.subscribers,
            instance.connected,
            instance.deliveries,
            instance.check.missing,
            instance.check.duplicates,
            spread(instance.latency)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench_server::stats::SequenceCheck;

    fn spread(p50: f64, p99: f64, max: f64) -> Spread {
        Spread { p50, p99, max }
    }

    fn memory(rss_mib: u64) -> Memory {
        Memory {
            rss_kib: rss_mib * 1024,
            hwm_kib: rss_mib * 1024 + 512,
        }
    }

    #[test]
    fn the_report_shows_every_figure() {
        let mut report = Report::new(Path::new("target/release/keel-server"), &[], 1000);
        report.fanout_delay_ms = Some(3);
        let run = |p99: f64| fanout::Report {
            subscribers: 1000,
            connected: 999,
            connect_errors: vec![("HTTP 503: busy".to_owned(), 1)],
            connect_secs: 0.25,
            turn: ("completed".to_owned(), None),
            seqs: (1, 500),
            read_back: 500,
            deliveries: 499_000,
            check: SequenceCheck {
                missing: 1000,
                ..SequenceCheck::default()
            },
            clean_subscribers: 998,
            notices: vec![("lagged".to_owned(), 1)],
            run_secs: 4.0,
            latency: Some(spread(20.0, p99, 300.0)),
            spread: Some(spread(5.0, 30.0, 90.0)),
            slowest: vec![(1, "agent.start".to_owned(), spread(250.0, 260.0, 270.0))],
            memory_start: memory(14),
            memory_connected: memory(48),
            memory_end: memory(96),
            server_cpu_secs: 2.5,
            client_cpu_secs: 2.0,
            window_secs: 4.1,
        };
        // Three runs: the table details the one with the median p99 (60 ms).
        report.fanout = vec![run(70.0), run(60.0), run(40.0)];
        report.persist.push(persist::Report {
            store: "sqlite",
            turn: ("completed".to_owned(), None),
            events: 50_010,
            read_back: 50_010,
            wall_secs: 1.0,
            end_from: "live receipt of the final event",
        });
        report.persist.push(persist::Report {
            store: "postgres",
            turn: ("failed".to_owned(), Some("database gone".to_owned())),
            events: 10,
            read_back: 9,
            wall_secs: 0.5,
            end_from: "ts of the final event (the live subscriber fell behind)",
        });
        report.idle = Some(idle::Report {
            sessions: 1000,
            create_secs: 0.4,
            base: memory(14),
            with_sessions: memory(15),
            subscribers: 1000,
            with_subscribers: memory(175),
        });
        report.notes.push("PostgreSQL skipped: example.".to_owned());
        let sections = report.sections();
        // The CPU count in the fan-out table depends on the machine.
        let cpus = std::thread::available_parallelism().map_or(0, usize::from);
        insta::assert_snapshot!(sections.replace(&format!("({cpus} CPUs)"), "(N CPUs)"));
        assert!(report.markdown().starts_with("# keel-server benchmark"));
    }
}
