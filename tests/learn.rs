//! Learned piece sets: testdata/learn/ holds two screens of pychess's "skulls" set, which the
//! shipped piece model never trained on (models/piece_sets.txt). Learned from the starting
//! position, the set reads the other screen exactly where the model alone misreads it. The
//! pure-Rust backend.

use std::path::{Path, PathBuf};

use img2fen::learn::{self, LearnOptions, LearnPicture, START_PLACEMENT};
use img2fen::{load_image, Backend, BoardKind, ClassifierOptions, Error, LearnedSet, Options, Recognizer, SetModel};

const GAME: &str = "r2q1rk1/pp1nbppp/2p1pn2/3p1b2/2PP4/1QN1PN2/PP2BPPP/R1B2RK1";

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/learn").join(name)
}

fn recognizer(set: Option<LearnedSet>) -> Result<Recognizer, Error> {
    Recognizer::new(Options {
        classifier: ClassifierOptions { backend: Backend::Tract, set, ..ClassifierOptions::default() },
        ..Options::default()
    })
}

fn learned(rec: &Recognizer, picture: &str, placement: Option<&str>) -> Result<LearnedSet, Error> {
    let path = testdata(picture);
    let image = load_image(&path).unwrap();
    let pics = [LearnPicture { path, image: &image, placement: placement.map(str::to_string) }];
    learn::learn(rec, &pics, "skulls", &LearnOptions::default())
}

#[test]
fn a_set_learned_from_the_starting_position_reads_a_design_the_model_never_saw() {
    let base = recognizer(None).unwrap();
    let game = testdata("pychess-skulls_game.png");
    let alone = base.read_file(&game).unwrap();
    assert_ne!(alone[0].placement, GAME, "the model alone misreads this design (else the test shows nothing)");
    assert_eq!(alone[0].set, None);

    let set = learned(&base, "pychess-skulls_start.png", None).unwrap();
    assert_eq!(set.model, SetModel::Pieces);
    assert_eq!(set.sources[0].placement, START_PLACEMENT);
    assert_eq!(set.sources[0].white_at, "bottom");
    let q = set.quality;
    assert_eq!(q.squares, 64);
    assert!(q.cross_validated_right > q.model_right, "the set separates held-out squares better: {q:?}");

    // Through its file, as the CLI reads it.
    let file = std::env::temp_dir().join(format!("img2fen-learn-{}.set.json", std::process::id()));
    set.save(&file).unwrap();
    let loaded = LearnedSet::load(&file).unwrap();
    std::fs::remove_file(&file).ok();
    let with = recognizer(Some(loaded)).unwrap();
    let read = with.read_file(&game).unwrap();
    assert_eq!(read[0].placement, GAME);
    assert_eq!(read[0].set.as_deref(), Some("skulls"));
    assert_eq!(read[0].kind, BoardKind::Flat);
    // The set's head belongs to the piece model: a board shown small is read with it too, not by
    // the small-board model.
    assert!(base.classifier().reads_small(10.0));
    assert!(!with.classifier().reads_small(10.0));
}

#[test]
fn a_picture_that_does_not_show_the_position_given_is_refused() {
    let base = recognizer(None).unwrap();
    match learned(&base, "pychess-skulls_start.png", Some(GAME)) {
        Err(e @ Error::Mismatch { .. }) => {
            assert_eq!(e.path(), Some(testdata("pychess-skulls_start.png").as_path()));
            assert!(e.to_string().contains("agrees with the position given on only"), "{e}");
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
    match learned(&base, "pychess-skulls_start.png", Some("not a fen/")) {
        Err(e @ Error::Mismatch { .. }) => assert!(e.to_string().contains("is not a FEN placement"), "{e}"),
        other => panic!("expected a mismatch, got {other:?}"),
    }
}

#[test]
fn a_set_learned_with_another_model_or_for_another_kind_of_board_is_refused() {
    let base = recognizer(None).unwrap();
    let mut set = learned(&base, "pychess-skulls_start.png", None).unwrap();
    let physical = Recognizer::new(Options {
        classifier: ClassifierOptions {
            backend: Backend::Tract,
            set: Some(set.clone()),
            ..ClassifierOptions::default()
        },
        kind: Some(BoardKind::Physical),
        ..Options::default()
    });
    let e = physical.err().expect("refused");
    assert!(e.to_string().contains("is for flat boards, and the boards are to be read as physical ones"), "{e}");
    set.model_fingerprint ^= 1;
    let e = recognizer(Some(set)).err().expect("refused");
    assert!(matches!(e, Error::Set { .. }), "{e:?}");
    assert!(e.to_string().contains("learned with another pieces model"), "{e}");
}
