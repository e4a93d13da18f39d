//! Ranking files and definitions: a PageRank over the reference graph (an edge from each file
//! to the files defining identifiers it references), personalised toward focused files and
//! identifiers the user mentioned, then spread over the definitions the edges point at.

use std::collections::HashSet;

use petgraph::graph::{DiGraph, NodeIndex};
use rustc_hash::FxHashMap;

use crate::symbol::FileTags;

/// Damping factor of the PageRank.
const DAMPING: f64 = 0.85;
/// Iteration cap and convergence threshold (L1 distance between iterations).
const MAX_ITERATIONS: usize = 100;
const TOLERANCE: f64 = 1e-6;

/// What to rank toward.
#[derive(Debug, Default)]
pub struct Personalisation<'a> {
    /// Indices of focused files.
    pub focus: HashSet<usize>,
    /// Identifiers mentioned by the user.
    pub mentions: HashSet<&'a str>,
}

/// The outcome of ranking.
#[derive(Debug, Clone)]
pub struct Ranking {
    /// PageRank of each file (same order as the input; sums to 1).
    pub file_rank: Vec<f64>,
    /// Every definition as `(file index, symbol index)`, best first.
    pub symbols: Vec<(usize, usize)>,
}

/// How much references to `ident` count.
fn identifier_weight(ident: &str, definers: usize, mentioned: bool) -> f64 {
    let mut weight = 1.0;
    if mentioned {
        weight *= 10.0;
    }
    let is_compound = ident.contains('_')
        || ident.contains('-')
        || (ident.chars().any(char::is_uppercase) && ident.chars().any(char::is_lowercase));
    if is_compound && ident.len() >= 8 {
        weight *= 10.0;
    }
    if ident.starts_with('_') {
        weight *= 0.1;
    }
    if definers > 5 {
        weight *= 0.1;
    }
    weight
}

/// Ranks `files` (paths and tags, in a fixed order).
///
/// The graph is bipartite: files and the identifiers they define. A file points at each
/// identifier it references (weight: how much the reference counts times how many files
/// define it), an identifier at each file defining it (evenly). A random walk from a file thus
/// reaches the files defining what it references exactly as over Aider's file→file edges, but
/// the graph grows with the number of references rather than references × definers.
pub fn rank(files: &[(&str, &FileTags)], personal: &Personalisation<'_>) -> Ranking {
    let n = files.len();
    if n == 0 {
        return Ranking {
            file_rank: Vec::new(),
            symbols: Vec::new(),
        };
    }

    // Identifiers defined somewhere, and who defines them.
    let mut ids: FxHashMap<&str, u32> = FxHashMap::default();
    let mut definers: Vec<Vec<u32>> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (index, (_, tags)) in files.iter().enumerate() {
        let file = index as u32;
        for symbol in &tags.symbols {
            if !symbol.kind.defines_name() {
                continue;
            }
            let name = symbol.name.as_str();
            let id = *ids.entry(name).or_insert_with(|| {
                definers.push(Vec::new());
                names.push(name);
                (definers.len() - 1) as u32
            });
            let list = &mut definers[id as usize];
            if list.last() != Some(&file) {
                list.push(file);
            }
        }
    }
    let idents = definers.len();
    let mentioned: Vec<bool> = names
        .iter()
        .map(|name| personal.mentions.contains(name))
        .collect();

    // Nodes: files 0..n, then identifiers. Identifier → definer edges first, then
    // file → identifier edges.
    let mut graph: DiGraph<(), f64> = DiGraph::with_capacity(n + idents, 0);
    let file_nodes: Vec<NodeIndex> = (0..n).map(|_| graph.add_node(())).collect();
    let ident_nodes: Vec<NodeIndex> = (0..idents).map(|_| graph.add_node(())).collect();
    for (id, list) in definers.iter().enumerate() {
        let share = 1.0 / list.len() as f64;
        for &file in list {
            graph.add_edge(ident_nodes[id], file_nodes[file as usize], share);
        }
    }
    let definition_edges = graph.edge_count();
    for (source, (_, tags)) in files.iter().enumerate() {
        let focus_boost = if personal.focus.contains(&source) {
            50.0
        } else {
            1.0
        };
        for (name, count) in &tags.references {
            let Some(&id) = ids.get(name.as_str()) else {
                continue;
            };
            let id = id as usize;
            let defined_in = definers[id].len();
            let weight = identifier_weight(name, defined_in, mentioned[id])
                * f64::from(*count).sqrt()
                * focus_boost
                * defined_in as f64;
            graph.add_edge(file_nodes[source], ident_nodes[id], weight);
        }
    }

    // Personalisation vector: focused files, files defining mentioned identifiers, files
    // whose path names a mentioned identifier.
    let mut personalisation = vec![0.0; n];
    for &index in &personal.focus {
        if let Some(slot) = personalisation.get_mut(index) {
            *slot += 1.0;
        }
    }
    for mention in &personal.mentions {
        if let Some(&id) = ids.get(mention) {
            for &file in &definers[id as usize] {
                personalisation[file as usize] += 1.0;
            }
        }
    }
    if !personal.mentions.is_empty() {
        for (index, (path, _)) in files.iter().enumerate() {
            let named = path
                .split(['/', '.', '-', '_'])
                .any(|part| !part.is_empty() && personal.mentions.contains(part));
            if named {
                personalisation[index] += 1.0;
            }
        }
    }
    let total: f64 = personalisation.iter().sum();
    if total > 0.0 {
        for value in &mut personalisation {
            *value /= total;
        }
    } else {
        personalisation.fill(1.0 / n as f64);
    }

    let walk = Walk {
        graph: &graph,
        files: n,
        definition_edges,
    };
    let (file_rank, flow) = walk.pagerank(&personalisation);

    // A definition's rank: what flows into its identifier, shared among the files defining it.
    let mut scored: Vec<(f64, usize, usize)> = Vec::new();
    for (file, (_, tags)) in files.iter().enumerate() {
        for (index, symbol) in tags.symbols.iter().enumerate() {
            let mut score = file_rank[file] * 1e-3;
            if symbol.kind.defines_name()
                && let Some(&id) = ids.get(symbol.name.as_str())
            {
                let id = id as usize;
                score += flow[id] / definers[id].len() as f64;
                if mentioned[id] {
                    score = score * 10.0 + 1.0;
                }
            }
            scored.push((score, file, index));
        }
    }
    scored.sort_unstable_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(file_rank[b.1].total_cmp(&file_rank[a.1]))
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
    Ranking {
        file_rank,
        symbols: scored.into_iter().map(|(_, f, s)| (f, s)).collect(),
    }
}

/// The random walk over the bipartite graph.
struct Walk<'a> {
    graph: &'a DiGraph<(), f64>,
    /// Nodes below this index are files.
    files: usize,
    /// Edges below this index go from identifiers to files.
    definition_edges: usize,
}

impl Walk<'_> {
    /// Personalised PageRank of the files by power iteration (dangling files teleport by the
    /// personalisation); also returns the rank flowing into each identifier.
    fn pagerank(&self, personalisation: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let n = self.files;
        let edges = self.graph.raw_edges();
        let (definitions, references) = edges.split_at(self.definition_edges.min(edges.len()));
        let idents = self.graph.node_count() - n;
        let mut out_weight = vec![0.0; n];
        for edge in references {
            out_weight[edge.source().index()] += edge.weight;
        }
        let mut rank = personalisation.to_vec();
        let mut next = vec![0.0; n];
        let mut flow = vec![0.0; idents];
        for _ in 0..MAX_ITERATIONS {
            self.flow(references, &rank, &out_weight, &mut flow);
            let dangling: f64 = (0..n)
                .filter(|&i| out_weight[i] == 0.0)
                .map(|i| rank[i])
                .sum();
            for (slot, p) in next.iter_mut().zip(personalisation) {
                *slot = (1.0 - DAMPING + DAMPING * dangling) * p;
            }
            for edge in definitions {
                next[edge.target().index()] +=
                    DAMPING * flow[edge.source().index() - n] * edge.weight;
            }
            let change: f64 = rank.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
            std::mem::swap(&mut rank, &mut next);
            if change < TOLERANCE {
                break;
            }
        }
        self.flow(references, &rank, &out_weight, &mut flow);
        (rank, flow)
    }

    /// Rank flowing from files into identifiers along reference edges.
    fn flow(
        &self,
        references: &[petgraph::graph::Edge<f64>],
        rank: &[f64],
        out_weight: &[f64],
        flow: &mut [f64],
    ) {
        flow.fill(0.0);
        for edge in references {
            let source = edge.source().index();
            flow[edge.target().index() - self.files] +=
                rank[source] * edge.weight / out_weight[source];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::Language;
    use crate::symbol::{Symbol, SymbolKind};

    fn tags(defs: &[&str], refs: &[&str]) -> FileTags {
        FileTags {
            language: Language::Rust,
            symbols: defs
                .iter()
                .enumerate()
                .map(|(i, name)| Symbol {
                    kind: SymbolKind::Function,
                    name: (*name).to_owned(),
                    signature: format!("fn {name}()"),
                    start_line: i as u32 + 1,
                    end_line: i as u32 + 1,
                    doc: None,
                    depth: 0,
                })
                .collect(),
            references: refs.iter().map(|r| ((*r).to_owned(), 1)).collect(),
        }
    }

    #[test]
    fn referenced_files_rank_higher_and_ranks_sum_to_one() {
        let a = tags(&["main"], &["helper", "util"]);
        let b = tags(&["helper"], &["util"]);
        let c = tags(&["util"], &[]);
        let d = tags(&["lonely"], &[]);
        let files = [("a.rs", &a), ("b.rs", &b), ("c.rs", &c), ("d.rs", &d)];
        let ranking = rank(&files, &Personalisation::default());
        let sum: f64 = ranking.file_rank.iter().sum();
        assert!((sum - 1.0).abs() < 1e-6, "{sum}");
        assert!(ranking.file_rank[2] > ranking.file_rank[0]);
        assert!(ranking.file_rank[2] > ranking.file_rank[3]);
        assert_eq!(ranking.symbols[0], (2, 0));
    }

    #[test]
    fn mentions_lift_their_definitions() {
        let a = tags(&["main"], &["helper", "util"]);
        let b = tags(&["helper"], &[]);
        let c = tags(&["util"], &[]);
        let d = tags(&["lonely"], &[]);
        let files = [("a.rs", &a), ("b.rs", &b), ("c.rs", &c), ("d.rs", &d)];
        let personal = Personalisation {
            mentions: HashSet::from(["lonely"]),
            ..Default::default()
        };
        let ranking = rank(&files, &personal);
        assert_eq!(ranking.symbols[0], (3, 0));
    }
}
