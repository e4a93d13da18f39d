//! What can go wrong with git work, each a sentence a person can act on.

/// A git step that could not be done, or was refused.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// A program (`git`, `gh`) could not be started.
    #[error("cannot run `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// A git command failed.
    #[error("`{command}` failed: {message}")]
    Command {
        /// The command line.
        command: String,
        /// What it said.
        message: String,
    },
    /// The project is not in a git work tree.
    #[error("`{0}` is not in a git work tree (git.commit, --commit, --branch and --pr need one)")]
    NotARepository(String),
    /// HEAD is detached: there is no branch to commit on or push.
    #[error("HEAD is detached (at {0}): switch to a branch, or give --branch NAME")]
    DetachedHead(String),
    /// The repository has no commit yet.
    #[error("the repository has no commit yet: make a first commit before Keel commits on it")]
    NoCommit,
    /// `--branch NAME` names a branch that exists elsewhere.
    #[error(
        "branch `{name}` already exists at {at}, not at HEAD ({head}): choose a new name, or switch to it yourself first"
    )]
    BranchExists {
        /// The branch.
        name: String,
        /// Its commit.
        at: String,
        /// HEAD's commit.
        head: String,
    },
    /// `--branch NAME` is not a valid branch name.
    #[error("`{0}` is not a valid branch name")]
    BadBranchName(String),
    /// A pull request was asked for on a work tree with changes Keel did not make.
    #[error(
        "refusing to open a pull request: the work tree has changes Keel did not make ({0}); commit or stash them first"
    )]
    DirtyTree(String),
    /// A pull request was asked for with no remote to push to.
    #[error(
        "refusing to open a pull request: the repository has no remote to push to (add one with `git remote add origin URL`)"
    )]
    NoRemote,
    /// A pull request was asked for from the remote's default branch.
    #[error(
        "refusing to open a pull request from `{0}`, the default branch: give --branch NAME to work on a new branch"
    )]
    DefaultBranch(String),
    /// A pull request was asked for but nothing was committed to propose.
    #[error("no pull request: branch `{0}` has no commit the remote does not have")]
    NothingToPropose(String),
}
