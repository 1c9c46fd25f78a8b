//! Runs only the locate step: `cargo run --release --example locate -- IMAGE... [--debug DIR]`.
//! Prints each board's corners, how many of the 49 interior corners were seen and the fit's
//! RMS error; with --debug, writes the input with the found grid drawn on it.

use std::path::PathBuf;

use img2fen::locate;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let debug = args.iter().position(|a| a == "--debug").map(|i| {
        let d = PathBuf::from(args.remove(i + 1));
        args.remove(i);
        std::fs::create_dir_all(&d).unwrap();
        d
    });
    for path in args {
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
        if let Some(d) = &debug {
            let stem = std::path::Path::new(&path).file_stem().unwrap().to_string_lossy().to_string();
            let quads: Vec<img2fen::Quad> = found.iter().map(|b| b.quad).collect();
            img2fen::debug::draw_quads(&img, &quads).save(d.join(format!("{stem}.grid.png"))).unwrap();
        }
    }
}
