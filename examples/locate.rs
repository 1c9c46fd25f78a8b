//! Runs only the locate step: `cargo run --release --example locate -- IMAGE...`.
//! Prints each board's corners, how many of the 49 interior corners were seen and the fit's
//! RMS error. (`img2fen --debug DIR` draws the found grid on the input.)

use img2fen::locate;

fn main() {
    for path in std::env::args().skip(1) {
        let img = match img2fen::load_image(path.as_ref()) {
            Ok(i) => i,
            Err(e) => {
                println!("{path}: {e}");
                continue;
            }
        };
        let t = std::time::Instant::now();
        let found = locate::locate_all(&img2fen::cells::grey(&img), &Default::default());
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if found.is_empty() {
            println!("{path}: no board ({ms:.1} ms)");
        }
        for b in &found {
            let c: Vec<String> = b.quad.0.iter().map(|p| format!("({:.1},{:.1})", p.x, p.y)).collect();
            println!("{path}: {} corners {}/49 rms {:.2}px ({ms:.1} ms)", c.join(" "), b.corners_found, b.rms_error);
        }
    }
}
