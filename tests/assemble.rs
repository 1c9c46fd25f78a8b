//! Steps 4 and 5 alone ([`img2fen::assemble`]), on made-up classifier output: no model is
//! loaded.

use img2fen::{Options, Orientation};

/// Steps 4 and 5 on made-up classifier output: `placement` as displayed (White at the bottom),
/// each square's class at `sure`, except the squares given at their own probability.
fn assembled(placement: &str, sure: f32, unsure: &[(usize, f32)]) -> img2fen::BoardReading {
    assembled_with(placement, sure, unsure, Some(Orientation::White))
}

/// [`assembled`] with the orientation given, or decided from the pieces (`None`).
fn assembled_with(
    placement: &str,
    sure: f32,
    unsure: &[(usize, f32)],
    orientation: Option<Orientation>,
) -> img2fen::BoardReading {
    assembled_with_coordinates(placement, sure, unsure, orientation, None)
}

/// [`assembled_with`], with what the coordinates said.
fn assembled_with_coordinates(
    placement: &str,
    sure: f32,
    unsure: &[(usize, f32)],
    orientation: Option<Orientation>,
    coords: Option<img2fen::orient::CoordinateReading>,
) -> img2fen::BoardReading {
    let opts = Options { orientation, ..Options::default() };
    let probs = probs_of(placement, sure, unsure);
    let located =
        img2fen::Located { quad: img2fen::Quad::rect(0.0, 0.0, 256.0, 256.0), corners_found: 49, rms_error: 0.0 };
    img2fen::assemble(
        probs,
        coords,
        &located,
        image::GrayImage::new(256, 256),
        &[],
        &opts,
        img2fen::Decoding::SquareBySquare,
    )
}

/// Made-up classifier output for the 64 displayed cells of `placement` (top row first): each
/// square's class at `sure`, except the cells given at their own probability, the rest spread
/// evenly over the other classes.
fn probs_of(placement: &str, sure: f32, unsure: &[(usize, f32)]) -> Vec<img2fen::ClassProbs> {
    let cells: Vec<char> = placement
        .split('/')
        .flat_map(|rank| {
            rank.chars().flat_map(|c| match c.to_digit(10) {
                Some(n) => vec!['.'; n as usize],
                None => vec![c],
            })
        })
        .collect();
    assert_eq!(cells.len(), 64);
    cells
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let k = img2fen::CLASS_CHARS.iter().position(|&x| x == c).unwrap();
            let p = unsure.iter().find(|u| u.0 == i).map_or(sure, |u| u.1);
            let mut v = [(1.0 - p) / 12.0; 13];
            v[k] = p;
            v
        })
        .collect()
}

#[test]
fn a_board_is_checked_as_a_whole_when_it_breaks_a_rule_or_three_squares_are_unsure() {
    let game = "r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1";
    assert_eq!(assembled(game, 0.98, &[]).check_whole_board(), None);
    // Two squares under 50% are the uncertain squares' business; a third makes the board's.
    let two = assembled(game, 0.98, &[(20, 0.45), (44, 0.4)]);
    assert_eq!(two.check_whole_board(), None);
    assert_eq!(two.uncertain().len(), 2);
    let three = assembled(game, 0.98, &[(20, 0.45), (44, 0.4), (63, 0.3)]);
    assert_eq!(three.check_whole_board().as_deref(), Some("3 squares read at under 50%"));
    // A black king read, surely, as White's: white has two kings, black none.
    let colour = assembled("r1bq1rK1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1", 0.98, &[]);
    assert_eq!(colour.check_whole_board().as_deref(), Some("the reading breaks a counting rule (white has 2 kings)"));
    // A second white king beside Black's own, both sure, nothing else broken: drawn so, most
    // likely. Its kings are flagged; the board is not sent back. Read at 90%, it is.
    let drawn = "r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2KP1N2/PPP2PPP/R2Q1RK1";
    let extra = assembled(drawn, 0.98, &[]);
    assert_eq!(extra.uncertain().len(), 2);
    assert_eq!(extra.check_whole_board(), None);
    let extra = assembled(drawn, 0.98, &[(42, 0.9)]);
    assert_eq!(extra.check_whole_board().as_deref(), Some("the reading breaks a counting rule (white has 2 kings)"));
    // A board editor's layout is read as drawn and not sent back to the user as a whole.
    let editor = assembled("kkkkkkkk/kkkkkkkk/8/8/8/8/KKKKKKKK/KKKKKKKK", 0.98, &[(20, 0.3), (21, 0.3), (22, 0.3)]);
    assert_eq!(editor.placement, "kkkkkkkk/kkkkkkkk/8/8/8/8/KKKKKKKK/KKKKKKKK");
    assert_eq!(editor.check_whole_board(), None);
    // Nor do its rules flag squares: the white pawn on rank 8 of a layout with five white kings
    // is drawn so.
    let editor = assembled("k3P3/8/8/8/8/8/8/KKKKK3", 0.98, &[]);
    assert!(editor.uncertain().is_empty(), "{:?}", editor.uncertain_summary());
    assert_eq!(editor.check_whole_board(), None);
    assert!(editor.warnings.iter().any(|w| w.contains("white pawn on e8")), "{:?}", editor.warnings);
}

#[test]
fn a_reading_with_one_side_kingless_is_checked_as_a_whole() {
    // The white king read, surely, as a black queen.
    let b = assembled("r1b2rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1Rq1", 0.98, &[]);
    assert!(b.uncertain().is_empty());
    assert_eq!(b.check_whole_board().as_deref(), Some("the reading breaks a counting rule (white has no king)"));
    // A diagram of how a knight moves has no king at all: nothing to check.
    assert_eq!(assembled("8/8/8/3N4/8/8/8/8", 0.98, &[]).check_whole_board(), None);
}

#[test]
fn a_physical_board_is_checked_as_a_whole_when_a_square_or_its_turn_is_unsure() {
    use img2fen::{BoardKind, OrientationSource};
    let game = "r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1";
    let physical = |mut b: img2fen::BoardReading| {
        b.kind = BoardKind::Physical;
        b
    };
    // Read surely and turned by the flag: nothing to check.
    assert_eq!(physical(assembled(game, 0.98, &[])).check_whole_board(), None);
    // One uncertain square sends a physical board back whole; a flat one keeps it to itself.
    let one = assembled(game, 0.98, &[(20, 0.55)]);
    assert_eq!(one.check_whole_board(), None);
    let why = physical(one).check_whole_board().unwrap();
    assert!(why.contains("1 uncertain square"), "{why}");
    // Every square sure, but the side at the bottom guessed from the pieces at 66%.
    let mut guessed = physical(assembled(game, 0.98, &[]));
    guessed.orientation_source = OrientationSource::Pieces;
    guessed.orientation_confidence = 0.66;
    let why = guessed.check_whole_board().unwrap();
    assert!(why.contains("66%"), "{why}");
    guessed.orientation_confidence = 0.95;
    assert_eq!(guessed.check_whole_board(), None);
}

#[test]
fn an_orientation_the_pieces_barely_decide_is_said_to_be_uncertain() {
    let uncertain =
        |b: &img2fen::BoardReading| b.warnings.iter().any(|w| w.contains("side is at the bottom is uncertain"));
    // A middlegame: the pawns and castled kings say White is at the bottom.
    let game = assembled_with("r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1", 0.98, &[], None);
    assert!(game.orientation_confidence >= img2fen::ORIENTATION_SURE && !uncertain(&game), "{:?}", game.warnings);
    // A bare ending says little.
    let ending = assembled_with("8/8/8/6pK/8/8/3b1QN1/7k", 0.98, &[], None);
    assert!(ending.orientation_confidence < img2fen::ORIENTATION_SURE, "{}", ending.orientation_confidence);
    assert!(uncertain(&ending), "{:?}", ending.warnings);
    // Told, it is no guess.
    assert!(!uncertain(&assembled("8/8/8/6pK/8/8/3b1QN1/7k", 0.98, &[])));
}

#[test]
fn an_orientation_faint_coordinates_decide_is_said_to_be_uncertain() {
    use img2fen::orient::CoordinateReading;
    use img2fen::OrientationSource;
    let uncertain =
        |b: &img2fen::BoardReading| b.warnings.iter().any(|w| w.contains("side is at the bottom is uncertain"));
    let ending = "8/8/8/6pK/8/8/3b1QN1/7k";
    let labels = |ranks: f32| Some(CoordinateReading { ranks, files: 0.0, shift: (0, 0) });
    // Rank digits too faint to decide alone say Black is at the bottom; the ending's pieces say
    // little, so the labels tip it, and the board says it is not sure.
    let faint = assembled_with_coordinates(ending, 0.98, &[], None, labels(-3.0));
    assert_eq!((faint.orientation, faint.orientation_source), (Orientation::Black, OrientationSource::Coordinates));
    assert!(faint.orientation_confidence < img2fen::ORIENTATION_SURE, "{}", faint.orientation_confidence);
    assert!(uncertain(&faint), "{:?}", faint.warnings);
    assert!(faint.warnings[0].contains("coordinates too faint"), "{}", faint.warnings[0]);
    // Faint labels that the sum makes look sure (over 95%) are still no more than faint: boards
    // without coordinates show such evidence too.
    let fainter = assembled_with_coordinates(ending, 0.98, &[], None, labels(-4.5));
    assert_eq!(fainter.orientation_source, OrientationSource::Coordinates);
    assert!(fainter.orientation_confidence >= img2fen::ORIENTATION_SURE, "{}", fainter.orientation_confidence);
    assert!(fainter.orientation_uncertain() && uncertain(&fainter), "{:?}", fainter.warnings);
    // Labels read clearly decide alone and surely.
    let clear = assembled_with_coordinates(ending, 0.98, &[], None, labels(-9.0));
    assert_eq!((clear.orientation, clear.orientation_source), (Orientation::Black, OrientationSource::Coordinates));
    assert!(!uncertain(&clear) && !clear.orientation_uncertain(), "{:?}", clear.warnings);
}

#[test]
fn the_whole_board_decides_which_turn_of_a_physical_board_is_up() {
    // A game seen from White's side, each square read at only 60%: as displayed, turned round
    // (Black at the bottom) and a quarter turn (a photo from beside the board).
    let game = "r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1";
    let white = probs_of(game, 0.6, &[]);
    let black: Vec<_> = white.iter().rev().copied().collect();
    let quarter: Vec<_> = (0..64).map(|i| white[(i % 8) * 8 + 7 - i / 8]).collect();
    let (turned, o, p) = img2fen::whole_board_orientation(&white, &quarter).expect("decided");
    assert_eq!((turned, o), (false, Orientation::White));
    assert!(p > 0.99, "{p}");
    let (turned, o, _) = img2fen::whole_board_orientation(&quarter, &black).expect("decided");
    assert_eq!((turned, o), (true, Orientation::Black));
    // A board with nothing to tell its sides apart (two lone kings in the middle) decides nothing.
    let kings = probs_of("8/8/8/3k4/4K3/8/8/8", 0.6, &[]);
    let kings_quarter: Vec<_> = (0..64).map(|i| kings[(i % 8) * 8 + 7 - i / 8]).collect();
    assert_eq!(img2fen::whole_board_orientation(&kings, &kings_quarter), None);
}
