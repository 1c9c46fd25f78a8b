//! Decoding pictures: every format img2fen reads, found by content, within size limits, turned
//! upright as their EXIF orientation says.

mod codecs;
pub mod heif;

use std::path::Path;

use image::DynamicImage;

use crate::Error;

/// Largest image accepted, in pixels per side and in decoded bytes (decompression-bomb guard).
pub const MAX_IMAGE_SIDE: u32 = 20_000;
/// See [`MAX_IMAGE_SIDE`].
pub const MAX_IMAGE_BYTES: u64 = 1 << 30;

/// Decodes an image file, guessing the format from its content, within size limits, turned
/// upright as its EXIF orientation says.
pub fn load_image(path: &Path) -> Result<DynamicImage, Error> {
    decode_image(&read_bytes(path)?).map_err(|e| e.in_file(path))
}

/// The bytes of the file at `path`, or an error that names it.
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|source| Error::Read { path: Some(path.to_path_buf()), source })
}

/// The size in pixels a picture's header claims, read without decoding it; `None` when the
/// header cannot be read (decoding then says why).
pub fn picture_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if heif::kind(bytes).is_some() {
        let p = heif::primary(bytes)?;
        let (w, h) = p.size?;
        return Some(if p.quarter_turns % 2 == 1 { (h, w) } else { (w, h) });
    }
    image::ImageReader::new(std::io::Cursor::new(bytes)).with_guessed_format().ok()?.into_dimensions().ok()
}

/// Refuses a picture whose header claims more pixels than img2fen reads.
fn claimed_within_limits(bytes: &[u8]) -> Result<(), Error> {
    picture_size(bytes).map_or(Ok(()), |(w, h)| within_limits(w, h))
}

/// Refuses a size beyond [`MAX_IMAGE_SIDE`] or [`MAX_IMAGE_BYTES`] before pixels are allocated.
fn within_limits(w: u32, h: u32) -> Result<(), Error> {
    if w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE || w as u64 * h as u64 * 4 > MAX_IMAGE_BYTES {
        return Err(Error::TooLarge {
            path: None,
            reason: format!(
                "{w}x{h} pixels; the limits are {MAX_IMAGE_SIDE} pixels a side and {} megapixels",
                MAX_IMAGE_BYTES / 4 / 1_000_000
            ),
        });
    }
    Ok(())
}

/// Decodes a HEIC or AVIF picture (phones write them) with its native library, upright.
fn decode_heif(kind: heif::Kind, bytes: &[u8]) -> Result<DynamicImage, Error> {
    claimed_within_limits(bytes)?;
    let img = codecs::decode(kind, bytes)?;
    Ok(match kind {
        // libheif applies the container's turn and mirror itself.
        heif::Kind::Heic => img,
        heif::Kind::Avif => heif::apply(img, &heif::primary(bytes).unwrap_or_default()),
    })
}

/// Decodes an image held in memory (format guessed from the content), within size limits,
/// turned upright as its EXIF orientation says.
pub fn decode_image(bytes: &[u8]) -> Result<DynamicImage, Error> {
    if bytes.is_empty() {
        return Err(Error::decode("empty file"));
    }
    if let Some(kind) = heif::kind(bytes) {
        return decode_heif(kind, bytes);
    }
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|source| Error::Read { path: None, source })?;
    if reader.format().is_none() {
        return Err(Error::decode("not an image (unrecognised format)"));
    }
    if reader.format() == Some(image::ImageFormat::Jpeg) && jpeg_is_truncated(bytes) {
        // The decoder fills what is missing with grey and says nothing; a board cut off so
        // reads as a wrong position (libjpeg's "Premature end of JPEG file").
        return Err(Error::decode("truncated JPEG: the data ends before its end-of-image marker"));
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(MAX_IMAGE_BYTES);
    reader.limits(limits);
    let why = |e: image::ImageError| match e {
        image::ImageError::Limits(l) => Error::TooLarge { path: None, reason: l.to_string() },
        image::ImageError::Unsupported(u) => Error::decode(format!("unsupported image: {u}")),
        other => Error::decode(format!("corrupt image: {other}")),
    };
    // The header alone says how large the picture claims to be: refuse a decompression bomb
    // with its size before anything is allocated for it.
    claimed_within_limits(bytes)?;
    let mut decoder = reader.into_decoder().map_err(why)?;
    // Phone photos are often stored sideways with an EXIF orientation tag; a missing or
    // unreadable tag means "as stored".
    let orientation =
        image::ImageDecoder::orientation(&mut decoder).unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut img = DynamicImage::from_decoder(decoder).map_err(why)?;
    img.apply_orientation(orientation);
    Ok(img)
}

/// By how much a JPEG can be reduced as it is decoded ([`decode_reduced`]) with its shorter
/// side kept at least `min_side` pixels: 8, 4 or 2, the most of these that does; `None` when the
/// bytes are no JPEG or it is too small to halve.
pub fn jpeg_reduction(bytes: &[u8], min_side: u32) -> Option<u32> {
    if !bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return None;
    }
    let (w, h) = picture_size(bytes)?;
    [8, 4, 2].into_iter().find(|&f| w.min(h) / f >= min_side)
}

/// Decodes a JPEG at 1/`factor` (2, 4 or 8) of its sides, as its DCT allows without decoding
/// it whole, turned upright as its EXIF orientation says; `None` when the bytes are no JPEG or
/// one this path does not decode (CMYK, 16 bits, arithmetic coding, damaged data, a truncated
/// file): [`decode_image`] then decodes it, or says why it cannot. A 12-megapixel photo decodes
/// in two thirds of the time at a quarter of its sides (the entropy decoding stays).
pub fn decode_reduced(bytes: &[u8], factor: u32) -> Option<DynamicImage> {
    if !bytes.starts_with(&[0xFF, 0xD8, 0xFF]) || !matches!(factor, 2 | 4 | 8) || jpeg_is_truncated(bytes) {
        return None;
    }
    let mut decoder = jpeg_decoder::Decoder::new(std::io::Cursor::new(bytes));
    decoder.read_info().ok()?;
    let info = decoder.info()?;
    let (w, h) = (info.width as u32, info.height as u32);
    within_limits(w, h).ok()?;
    let (rw, rh) = decoder.scale(w.div_ceil(factor) as u16, h.div_ceil(factor) as u16).ok()?;
    let (rw, rh) = (rw as u32, rh as u32);
    if w.div_ceil(rw) != factor {
        return None;
    }
    let pixels = decoder.decode().ok()?;
    let mut img = match info.pixel_format {
        jpeg_decoder::PixelFormat::L8 => DynamicImage::ImageLuma8(image::GrayImage::from_raw(rw, rh, pixels)?),
        jpeg_decoder::PixelFormat::RGB24 => DynamicImage::ImageRgb8(image::RgbImage::from_raw(rw, rh, pixels)?),
        jpeg_decoder::PixelFormat::L16 | jpeg_decoder::PixelFormat::CMYK32 => return None,
    };
    let orientation = decoder.exif_data().and_then(image::metadata::Orientation::from_exif_chunk);
    img.apply_orientation(orientation.unwrap_or(image::metadata::Orientation::NoTransforms));
    Some(img)
}

/// The most pages [`tiff_pages`] follows in one TIFF file.
pub const MAX_TIFF_PAGES: usize = 10_000;

/// The pages of a TIFF file: the offset of each image file directory, in order, or `None` when
/// the bytes are not a TIFF (classic or BigTIFF). The chain stops at a broken or repeated
/// offset, or at [`MAX_TIFF_PAGES`].
pub fn tiff_pages(bytes: &[u8]) -> Option<Vec<u64>> {
    let little = match bytes.get(..2)? {
        b"II" => true,
        b"MM" => false,
        _ => return None,
    };
    let int = |at: u64, len: usize| -> Option<u64> {
        let b = bytes.get(usize::try_from(at).ok()?..)?.get(..len)?;
        let mut v = 0u64;
        for i in 0..len {
            let byte = if little { b[len - 1 - i] } else { b[i] };
            v = (v << 8) | byte as u64;
        }
        Some(v)
    };
    // Classic TIFF: 2-byte entry counts, 12-byte entries, 4-byte offsets; BigTIFF: 8, 20, 8.
    let (count_len, entry_len, offset_len, first) = match int(2, 2)? {
        42 => (2, 12, 4, int(4, 4)?),
        43 => (8, 20, 8, int(8, 8)?),
        _ => return None,
    };
    let mut pages = vec![];
    let mut at = first;
    while at != 0 && pages.len() < MAX_TIFF_PAGES && !pages.contains(&at) {
        let Some(entries) = int(at, count_len) else { break };
        pages.push(at);
        let next = at.checked_add(count_len as u64).and_then(|x| x.checked_add(entries.checked_mul(entry_len)?));
        match next.and_then(|n| int(n, offset_len)) {
            Some(n) => at = n,
            None => break,
        }
    }
    Some(pages)
}

/// The TIFF file `bytes` with its page at `offset` ([`tiff_pages`]) as its first, so that a
/// TIFF decoder reads that page: the header's first-directory offset is pointed at it.
pub fn tiff_page(bytes: &[u8], offset: u64) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let little = out.starts_with(b"II");
    let (at, len) =
        if out.get(2..4) == Some(if little { &[43, 0][..] } else { &[0, 43][..] }) { (8, 8) } else { (4, 4) };
    for i in 0..len {
        let shift = 8 * if little { i } else { len - 1 - i };
        if let Some(b) = out.get_mut(at + i) {
            *b = (offset >> shift) as u8;
        }
    }
    out
}

/// Whether JPEG data stops before its end-of-image marker (FF D9) after the last start of scan
/// (FF DA). Inside the entropy-coded data every FF byte is followed by 00 or a restart marker,
/// so FF D9 there can only be the end of the image.
fn jpeg_is_truncated(bytes: &[u8]) -> bool {
    let Some(sos) = bytes.windows(2).rposition(|w| w == [0xFF, 0xDA]) else { return true };
    !bytes[sos..].windows(2).any(|w| w == [0xFF, 0xD9])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jpeg() -> Vec<u8> {
        let img = image::RgbImage::from_fn(64, 48, |x, y| image::Rgb([(x * 4) as u8, (y * 5) as u8, 90]));
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Jpeg).unwrap();
        out.into_inner()
    }

    #[test]
    fn each_page_of_a_multi_page_tiff_is_read_on_its_own() {
        let page = |v: u8| image::GrayImage::from_pixel(40, 30, image::Luma([v]));
        let mut bytes = std::io::Cursor::new(Vec::new());
        {
            let mut enc = tiff::encoder::TiffEncoder::new(&mut bytes).unwrap();
            for v in [10, 120, 250] {
                enc.write_image::<tiff::encoder::colortype::Gray8>(40, 30, page(v).as_raw()).unwrap();
            }
        }
        let bytes = bytes.into_inner();
        let pages = tiff_pages(&bytes).unwrap();
        assert_eq!(pages.len(), 3);
        for (offset, v) in pages.into_iter().zip([10, 120, 250]) {
            let img = decode_image(&tiff_page(&bytes, offset)).unwrap();
            assert_eq!(img.to_luma8().get_pixel(5, 5).0, [v]);
        }
        assert_eq!(tiff_pages(b"\x89PNG\r\n"), None);
        // A chain that loops back on itself stops.
        let mut looped = bytes.clone();
        let first = tiff_pages(&bytes).unwrap()[0] as usize;
        let entries = u16::from_le_bytes([bytes[first], bytes[first + 1]]) as usize;
        looped[first + 2 + 12 * entries..first + 6 + 12 * entries].copy_from_slice(&(first as u32).to_le_bytes());
        assert_eq!(tiff_pages(&looped).unwrap().len(), 1);
    }

    #[test]
    fn a_heic_or_avif_photo_is_named_as_such() {
        // Headers with nothing behind them: with its decoder, a corrupt picture of its kind;
        // without, a picture of its kind and how to get the decoder.
        for (bytes, name) in [
            (&b"\0\0\0\x18ftypheic\0\0\0\0mif1heic"[..], "HEIC"),
            (&b"\0\0\0\x1cftypavif\0\0\0\0avifmif1miaf"[..], "AVIF"),
        ] {
            let e = decode_image(bytes).unwrap_err().to_string();
            let missing = e.contains(&format!("picture, and no {name} decoder was found"));
            assert!(missing || e.starts_with(&format!("corrupt {name} picture")), "{e}");
            if missing {
                assert!(e.contains("scripts/fetch_codecs.sh") && e.contains("convert the picture"), "{e}");
            }
        }
    }

    #[test]
    fn a_large_jpeg_decodes_reduced_upright_and_as_its_whole_decoding_averaged() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/green_arrows_exif_rotated.jpg");
        let bytes = std::fs::read(path).unwrap();
        // Stored 620x1000 with EXIF orientation 6: upright it is 1000x620.
        let whole = decode_image(&bytes).unwrap().to_luma8();
        assert_eq!(whole.dimensions(), (1000, 620));
        assert_eq!(jpeg_reduction(&bytes, 300), Some(2));
        let half = decode_reduced(&bytes, 2).unwrap();
        assert_eq!((half.width(), half.height()), (500, 310));
        let averaged = crate::imageops::box_downscale(&whole, 2);
        let diff: u64 =
            half.to_luma8().pixels().zip(averaged.pixels()).map(|(a, b)| a.0[0].abs_diff(b.0[0]) as u64).sum();
        let mean = diff as f64 / (500.0 * 310.0);
        assert!(mean < 3.0, "mean difference {mean:.2} grey levels");
        assert_eq!(jpeg_reduction(&bytes, 100), Some(4));
        assert_eq!(decode_reduced(&bytes, 8).map(|i| (i.width(), i.height())), Some((125, 78)));
        // Too small to halve, no JPEG, cut short: decoded whole instead.
        assert_eq!(jpeg_reduction(&bytes, 311), None);
        assert_eq!(jpeg_reduction(b"\x89PNG\r\n", 10), None);
        assert!(decode_reduced(b"\x89PNG\r\n", 2).is_none());
        assert!(decode_reduced(&bytes[..bytes.len() / 2], 2).is_none());
    }

    #[test]
    fn a_truncated_jpeg_is_refused_and_a_whole_one_read() {
        let whole = jpeg();
        assert!(decode_image(&whole).is_ok());
        // Bytes after the end of the image (some cameras append data) are no damage.
        let mut trailing = whole.clone();
        trailing.extend_from_slice(b"appended");
        assert!(decode_image(&trailing).is_ok());
        for keep in [whole.len() * 3 / 4, whole.len() - 2] {
            let e = decode_image(&whole[..keep]).unwrap_err().to_string();
            assert!(e.contains("truncated JPEG"), "{keep} bytes: {e}");
        }
    }
}
