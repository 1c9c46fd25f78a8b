//! [`Error`]: what can go wrong reading a picture, in kinds a caller can match on.

use std::fmt;
use std::path::{Path, PathBuf};

/// What can go wrong reading a picture. Messages name the problem, not the file: the file is
/// [`Error::path`], set by the calls that read one ([`crate::load_image`],
/// [`crate::Recognizer::read_file`]), so that a caller prints it once, where it wants it.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be read.
    Read {
        /// The file, when there is one.
        path: Option<PathBuf>,
        /// Why.
        source: std::io::Error,
    },
    /// The bytes are not a picture img2fen decodes: empty, of no known format, unsupported or
    /// corrupt.
    Decode {
        /// The file, when there is one.
        path: Option<PathBuf>,
        /// What the decoder said.
        reason: String,
    },
    /// The picture is larger than img2fen reads ([`crate::MAX_IMAGE_SIDE`],
    /// [`crate::MAX_IMAGE_BYTES`]).
    TooLarge {
        /// The file, when there is one.
        path: Option<PathBuf>,
        /// The size it claims, and the limits.
        reason: String,
    },
    /// The picture is smaller than the smallest board img2fen reads.
    TooSmall {
        /// The file, when there is one.
        path: Option<PathBuf>,
        /// Its width in pixels.
        width: u32,
        /// Its height in pixels.
        height: u32,
        /// The smallest side a board may have, in pixels.
        min: u32,
    },
    /// No chessboard was found in the picture.
    NoBoard {
        /// The file, when there is one.
        path: Option<PathBuf>,
        /// What came nearest, for a person ([`crate::locate::NearestGrid::describe`]), e.g. "the
        /// largest checkered region found is 4x3 squares (6 corners seen); a board needs 20 of
        /// its 49 inner corners", or "no grid of alternating squares".
        nearest: String,
    },
    /// A model could not be loaded (file, format, backend library).
    ModelLoad {
        /// The model or library file, when there is one.
        path: Option<PathBuf>,
        /// Why.
        reason: String,
    },
    /// A model failed while running.
    ModelRun(String),
    /// A learned piece set ([`crate::learn`]) could not be read, is not one, or was learned with
    /// another model than the one loaded.
    Set {
        /// The set file, when there is one.
        path: Option<PathBuf>,
        /// Why.
        reason: String,
    },
    /// A picture given to learn a set from does not show the position it was given with (or no
    /// usable board): the set is not learned from it.
    Mismatch {
        /// The picture, when there is one.
        path: Option<PathBuf>,
        /// What did not match.
        reason: String,
    },
}

impl Error {
    /// The file the error is about, when there is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Error::Read { path, .. }
            | Error::Decode { path, .. }
            | Error::TooLarge { path, .. }
            | Error::TooSmall { path, .. }
            | Error::NoBoard { path, .. }
            | Error::ModelLoad { path, .. }
            | Error::Set { path, .. }
            | Error::Mismatch { path, .. } => path.as_deref(),
            Error::ModelRun(_) => None,
        }
    }

    /// The same error about the picture at `file` (model and set errors keep their own path).
    pub fn in_file(mut self, file: &Path) -> Self {
        match &mut self {
            Error::Read { path, .. }
            | Error::Decode { path, .. }
            | Error::TooLarge { path, .. }
            | Error::TooSmall { path, .. }
            | Error::NoBoard { path, .. }
            | Error::Mismatch { path, .. } => *path = Some(file.to_path_buf()),
            Error::ModelLoad { .. } | Error::ModelRun(_) | Error::Set { .. } => {}
        }
        self
    }

    pub(crate) fn decode(reason: impl Into<String>) -> Self {
        Error::Decode { path: None, reason: reason.into() }
    }

    pub(crate) fn model_load(path: Option<&Path>, reason: impl Into<String>) -> Self {
        Error::ModelLoad { path: path.map(Path::to_path_buf), reason: reason.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read { source, .. } => write!(f, "cannot read: {source}"),
            Error::Decode { reason, .. } => f.write_str(reason),
            Error::TooLarge { reason, .. } => write!(f, "image too large: {reason}"),
            Error::TooSmall { width, height, min, .. } => {
                write!(f, "image too small: {width}x{height} pixels; a board must be at least {min} pixels across")
            }
            Error::NoBoard { nearest, .. } => write!(f, "no board found: {nearest}"),
            Error::ModelLoad { path: Some(path), reason } => write!(f, "{}: {reason}", path.display()),
            Error::ModelLoad { path: None, reason } => f.write_str(reason),
            Error::ModelRun(reason) => write!(f, "inference: {reason}"),
            Error::Set { path: Some(path), reason } => write!(f, "{}: {reason}", path.display()),
            Error::Set { path: None, reason } => f.write_str(reason),
            Error::Mismatch { reason, .. } => write!(f, "cannot learn from this picture: {reason}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}
