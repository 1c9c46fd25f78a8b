//! Decoding pictures: every format img2fen reads, found by content, within size limits, turned
//! upright as their EXIF orientation says.

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
    let bytes = std::fs::read(path).map_err(|source| Error::Read { path: Some(path.to_path_buf()), source })?;
    decode_image(&bytes).map_err(|e| e.in_file(path))
}

/// Decodes an image held in memory (format guessed from the content), within size limits,
/// turned upright as its EXIF orientation says.
pub fn decode_image(bytes: &[u8]) -> Result<DynamicImage, Error> {
    if bytes.is_empty() {
        return Err(Error::decode("empty file"));
    }
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|source| Error::Read { path: None, source })?;
    if reader.format().is_none() {
        return Err(Error::decode("not an image (unrecognised format)"));
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
    let header = image::ImageReader::new(std::io::Cursor::new(bytes)).with_guessed_format();
    if let Ok((w, h)) = header.map_err(image::ImageError::IoError).and_then(|r| r.into_dimensions()) {
        if w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE || w as u64 * h as u64 * 4 > MAX_IMAGE_BYTES {
            return Err(Error::TooLarge {
                path: None,
                reason: format!(
                    "{w}x{h} pixels; the limits are {MAX_IMAGE_SIDE} pixels a side and {} megapixels",
                    MAX_IMAGE_BYTES / 4 / 1_000_000
                ),
            });
        }
    }
    let mut decoder = reader.into_decoder().map_err(why)?;
    // Phone photos are often stored sideways with an EXIF orientation tag; a missing or
    // unreadable tag means "as stored".
    let orientation =
        image::ImageDecoder::orientation(&mut decoder).unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut img = DynamicImage::from_decoder(decoder).map_err(why)?;
    img.apply_orientation(orientation);
    Ok(img)
}
