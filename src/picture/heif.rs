//! HEIF containers, the pictures phones write: HEIC (HEVC inside, every iPhone by default) and
//! AVIF (AV1 inside). The container is read here, in Rust: its brand, and of its primary picture
//! the size (`ispe`) and how it is to be turned (`irot`, `imir`), so that a picture too large is
//! refused before anything is decoded and an AVIF comes out upright. The compressed picture
//! itself is decoded by a native library loaded at run time (`picture::codecs`, private).

/// Which picture a HEIF container holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// HEVC-coded (`heic`, `heix`, `mif1`, ... brands).
    Heic,
    /// AV1-coded (`avif`, `avis` brands).
    Avif,
}

impl Kind {
    /// The format's name, as people know it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Heic => "HEIC",
            Kind::Avif => "AVIF",
        }
    }

    /// "a HEIC" or "an AVIF".
    pub fn with_article(self) -> &'static str {
        match self {
            Kind::Heic => "a HEIC",
            Kind::Avif => "an AVIF",
        }
    }
}

/// The kind of HEIF picture `bytes` start as (an ISO media `ftyp` box with a HEIF or AVIF major
/// brand), or `None`.
pub fn kind(bytes: &[u8]) -> Option<Kind> {
    let brand = bytes.get(4..12).filter(|b| b.starts_with(b"ftyp"))?.get(4..8)?;
    match brand {
        b"avif" | b"avis" => Some(Kind::Avif),
        b"heic" | b"heix" | b"heim" | b"heis" | b"hevc" | b"hevx" | b"mif1" | b"msf1" => {
            // A generic `mif1` file says what it holds in its compatible brands.
            let ftyp_len = u32::from_be_bytes(bytes[..4].try_into().ok()?) as usize;
            let compatible = bytes.get(16..ftyp_len.min(bytes.len())).unwrap_or(&[]);
            let avif = brand == b"mif1" && compatible.chunks_exact(4).any(|c| c == b"avif");
            Some(if avif { Kind::Avif } else { Kind::Heic })
        }
        _ => None,
    }
}

/// What the container says of its primary picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Primary {
    /// Width and height as coded, before turning (`ispe`), when given.
    pub size: Option<(u32, u32)>,
    /// Quarter turns anticlockwise to apply (`irot`), 0-3.
    pub quarter_turns: u8,
    /// The mirroring to apply after the turn (`imir`): `Some(false)` about a vertical axis (left
    /// and right swap), `Some(true)` about a horizontal axis (top and bottom swap).
    pub mirror: Option<bool>,
}

/// One ISO media box: its type and its content (after the header).
struct IsoBox<'a> {
    kind: [u8; 4],
    body: &'a [u8],
}

/// The boxes one after another in `data`; stops at the first malformed one.
fn boxes(mut data: &[u8]) -> impl Iterator<Item = IsoBox<'_>> {
    std::iter::from_fn(move || {
        let size = u32::from_be_bytes(data.get(..4)?.try_into().ok()?) as u64;
        let kind: [u8; 4] = data.get(4..8)?.try_into().ok()?;
        let (header, size) = match size {
            0 => (8, data.len() as u64),
            1 => (16, u64::from_be_bytes(data.get(8..16)?.try_into().ok()?)),
            n => (8, n),
        };
        let size = usize::try_from(size).ok().filter(|&s| s >= header && s <= data.len())?;
        let b = IsoBox { kind, body: &data[header..size] };
        data = &data[size..];
        Some(b)
    })
}

fn child<'a>(data: &'a [u8], kind: &[u8; 4]) -> Option<&'a [u8]> {
    boxes(data).find(|b| &b.kind == kind).map(|b| b.body)
}

fn be(data: &[u8], at: usize, len: usize) -> Option<u32> {
    Some(data.get(at..at + len)?.iter().fold(0u32, |v, &b| (v << 8) | b as u32))
}

/// Reads the primary picture's size and turns from a HEIF container; `None` when the container
/// has no `meta` box that names a primary picture.
pub fn primary(bytes: &[u8]) -> Option<Primary> {
    // `meta` is a full box: 4 bytes of version and flags before its children.
    let meta = child(bytes, b"meta")?.get(4..)?;
    let pitm = child(meta, b"pitm")?;
    let item = if pitm.first()? == &0 { be(pitm, 4, 2)? } else { be(pitm, 4, 4)? };
    let iprp = child(meta, b"iprp")?;
    let properties: Vec<IsoBox<'_>> = boxes(child(iprp, b"ipco")?).collect();
    let mut out = Primary::default();
    for ipma in boxes(iprp).filter(|b| &b.kind == b"ipma") {
        let (version, flags) = (*ipma.body.first()?, be(ipma.body, 1, 3)?);
        let entries = be(ipma.body, 4, 4)?;
        let mut at = 8;
        for _ in 0..entries {
            let id_len = if version < 1 { 2 } else { 4 };
            let id = be(ipma.body, at, id_len)?;
            let count = *ipma.body.get(at + id_len)? as usize;
            at += id_len + 1;
            let wide = flags & 1 == 1;
            for _ in 0..count {
                let index = if wide { be(ipma.body, at, 2)? & 0x7fff } else { be(ipma.body, at, 1)? & 0x7f };
                at += if wide { 2 } else { 1 };
                if id != item || index == 0 {
                    continue;
                }
                let Some(p) = properties.get(index as usize - 1) else { continue };
                match &p.kind {
                    b"ispe" => out.size = Some((be(p.body, 4, 4)?, be(p.body, 8, 4)?)),
                    b"irot" => out.quarter_turns = p.body.first()? & 3,
                    b"imir" => out.mirror = Some(p.body.first()? & 1 == 1),
                    _ => {}
                }
            }
        }
    }
    Some(out)
}

/// Turns a decoded picture upright as the container says: the turn first, then the mirror.
pub fn apply(img: image::DynamicImage, p: &Primary) -> image::DynamicImage {
    let img = match p.quarter_turns {
        1 => img.rotate270(),
        2 => img.rotate180(),
        3 => img.rotate90(),
        _ => img,
    };
    match p.mirror {
        Some(false) => img.fliph(),
        Some(true) => img.flipv(),
        None => img,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso_box(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut b = ((body.len() + 8) as u32).to_be_bytes().to_vec();
        b.extend_from_slice(kind);
        b.extend_from_slice(body);
        b
    }

    /// A HEIF header: `ftyp`, then `meta` with a primary item 1 whose properties are `props`
    /// (in `ipco`), of which `assoc` (1-based) are its own; a second item gets property 1 only.
    fn heif(brand: &[u8; 4], props: &[Vec<u8>], assoc: &[u8]) -> Vec<u8> {
        let mut out = iso_box(b"ftyp", &[&brand[..], &[0, 0, 0, 0], b"mif1"].concat());
        let pitm = iso_box(b"pitm", &[0, 0, 0, 0, 0, 1]);
        let ipco = iso_box(b"ipco", &props.concat());
        // Version 0, no flags, two entries; item 2 first (it must not lend the primary its
        // properties), with property 1 marked essential; then item 1.
        let mut ipma = vec![0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 1, 0x81, 0, 1, assoc.len() as u8];
        ipma.extend(assoc.iter().map(|&i| i | 0x80));
        let ipma = iso_box(b"ipma", &ipma);
        let iprp = iso_box(b"iprp", &[ipco, ipma].concat());
        out.extend(iso_box(b"meta", &[&[0u8, 0, 0, 0][..], &pitm, &iprp].concat()));
        out
    }

    #[test]
    fn the_primary_pictures_size_and_turns_are_read_and_other_items_ignored() {
        let ispe = iso_box(b"ispe", &[0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 3, 0]);
        let small = iso_box(b"ispe", &[0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 48]);
        let irot = iso_box(b"irot", &[3]);
        let imir = iso_box(b"imir", &[1]);
        // Item 2 (a thumbnail) has property 1; the primary has 2, 3 and 4.
        let bytes = heif(b"heic", &[small, ispe, irot, imir], &[2, 3, 4]);
        assert_eq!(kind(&bytes), Some(Kind::Heic));
        assert_eq!(primary(&bytes), Some(Primary { size: Some((1024, 768)), quarter_turns: 3, mirror: Some(true) }));
        let plain = heif(b"avif", &[iso_box(b"ispe", &[0; 12])], &[1]);
        assert_eq!(kind(&plain), Some(Kind::Avif));
        assert_eq!(primary(&plain), Some(Primary { size: Some((0, 0)), quarter_turns: 0, mirror: None }));
    }

    #[test]
    fn a_generic_brand_is_told_by_its_compatible_brands_and_broken_boxes_give_none() {
        let mut avif = iso_box(b"ftyp", b"mif1\0\0\0\0mif1avifmiaf");
        avif.extend(iso_box(b"meta", &[0; 4]));
        assert_eq!(kind(&avif), Some(Kind::Avif));
        assert_eq!(kind(b"\0\0\0\x18ftypmif1\0\0\0\0mif1heic"), Some(Kind::Heic));
        assert_eq!(kind(b"\x89PNG\r\n\x1a\n"), None);
        // No pitm: no primary picture.
        assert_eq!(primary(&avif), None);
        // A box claiming more bytes than there are ends the walk, without a panic.
        let mut cut = heif(b"heic", &[iso_box(b"irot", &[1])], &[1]);
        let len = cut.len();
        cut.truncate(len - 3);
        assert_eq!(primary(&cut), None);
        assert_eq!(primary(&[]), None);
    }

    #[test]
    fn a_picture_claiming_too_many_pixels_is_refused_before_decoding() {
        // 60000x60000 in `ispe`, turned a quarter: refused from the header, codecs or not.
        let ispe = iso_box(b"ispe", &[0, 0, 0, 0, 0, 0, 0xea, 0x60, 0, 0, 0xea, 0x60]);
        let bytes = heif(b"heic", &[ispe, iso_box(b"irot", &[1])], &[1, 2]);
        assert_eq!(crate::picture_size(&bytes), Some((60_000, 60_000)));
        let e = crate::decode_image(&bytes).unwrap_err();
        assert!(matches!(e, crate::Error::TooLarge { .. }), "{e}");
        assert!(e.to_string().contains("60000x60000 pixels"), "{e}");
    }

    #[test]
    fn turning_then_mirroring_puts_the_top_left_corner_where_it_belongs() {
        // A 3x2 picture with its top-left pixel marked.
        let mut img = image::GrayImage::new(3, 2);
        img.put_pixel(0, 0, image::Luma([255]));
        let marked = |img: image::DynamicImage| {
            let g = img.to_luma8();
            let (x, y, _) = g.enumerate_pixels().find(|p| p.2 .0[0] == 255).unwrap();
            (g.width(), g.height(), x, y)
        };
        let turned = |q, m| apply(img.clone().into(), &Primary { size: None, quarter_turns: q, mirror: m });
        // A quarter turn anticlockwise takes the top-left corner to the bottom left.
        assert_eq!(marked(turned(1, None)), (2, 3, 0, 2));
        assert_eq!(marked(turned(2, None)), (3, 2, 2, 1));
        assert_eq!(marked(turned(3, None)), (2, 3, 1, 0));
        assert_eq!(marked(turned(0, Some(false))), (3, 2, 2, 0));
        assert_eq!(marked(turned(1, Some(true))), (2, 3, 0, 0));
    }
}
