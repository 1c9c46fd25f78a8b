//! img2fen reads a chess position out of a picture and writes it as FEN.
//!
//! The pipeline has five steps, one module each, every one usable alone:
//! [`locate`] (find the board's corners) and [`warp`] (to an upright square), [`cells`] (cut 64
//! cells), [`classify`] (13 classes per cell with an ONNX model), [`orient`] (which side is at the
//! bottom) and [`fen`] (assemble and check the FEN), with [`to_move`] (the side to move from
//! the picture, when asked). [`learn`] fits a piece set's own head from
//! pictures whose position is known. [`Recognizer`] runs them all; [`assemble`]
//! runs steps 4 and 5 alone, without a model. `docs/how-it-works.md` describes each step.
//!
//! ```no_run
//! let rec = img2fen::Recognizer::new(img2fen::Options::default())?;
//! for board in rec.read_file("screenshot.png".as_ref())? {
//!     println!("{}", board.fen);
//! }
//! # Ok::<(), img2fen::Error>(())
//! ```
#![warn(missing_docs)]

pub mod cells;
pub mod classify;
pub mod fen;
pub mod geometry;
pub mod learn;
pub mod locate;
pub mod orient;
#[cfg(feature = "pdf")]
pub mod pdf;
pub mod textboard;
pub mod to_move;
pub mod warp;

mod dylib;
mod error;
mod imageops;
mod picture;
mod reading;
mod recognizer;

pub use classify::{Backend, ClassProbs, Classifier, ClassifierOptions, CLASSES, CLASS_CHARS};
pub use error::Error;
pub use fen::{Castling, FenOptions, TurnSource};
pub use geometry::{Point, Quad};
pub use learn::{LearnedSet, SetModel};
pub use locate::{LocateOptions, Located, NearestGrid};
pub use orient::{CoordinateReading, Orientation, OrientationSource};
pub use picture::heif;
pub use picture::{
    decode_image, decode_reduced, jpeg_reduction, load_image, picture_size, tiff_page, tiff_pages, MAX_IMAGE_BYTES,
    MAX_IMAGE_SIDE, MAX_TIFF_PAGES,
};
pub use reading::{
    assemble, orientation_uncertain, piece_name, whole_board_orientation, whole_board_reason, BoardKind, BoardReading,
    Decoding, ReadingSource, SquareReading, DEFAULT_MIN_CONFIDENCE, ORIENTATION_SURE, PHYSICAL_TURN_SURE,
    SURE_SECOND_KING, WHOLE_BOARD_ORIENTATION_MARGIN, WHOLE_BOARD_UNSURE, WHOLE_BOARD_UNSURE_P,
};
pub use recognizer::{
    quarter_turned, Options, PictureReading, Recognizer, MOVE_CONTRAST_SLACK, PHYSICAL_AT, REDUCED_MIN_BOARD_PX,
    REDUCED_MIN_SIDE, SECOND_LOOK_BELOW, SECOND_LOOK_SHIFT, UPRIGHT_DEGREES,
};
pub use to_move::SideToMove;
