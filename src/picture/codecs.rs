//! Native decoders for the pictures phones write, loaded at run time the way ONNX Runtime is:
//! libheif for HEIC (from PyPI's `pillow-heif` wheel, with libde265) and libavif for AVIF (from
//! PyPI's `pillow` wheel, with its AV1 decoders). No pure-Rust HEVC decoder exists, and the
//! pure-Rust AV1 ones are either young or under the AGPL; img2fen builds and runs without these
//! libraries and says, for such a picture, how to get them (`scripts/fetch_codecs.sh`).
//!
//! Libraries are looked for in `$IMG2FEN_CODECS` (a folder), then in `codecs/` next to the
//! executable, then under their usual names on the system's library path.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::PathBuf;
use std::sync::OnceLock;

use image::{DynamicImage, RgbImage};

use super::heif::Kind;
use crate::Error;

/// The folders searched for codec libraries, in order.
pub fn codec_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![];
    if let Some(v) = std::env::var_os("IMG2FEN_CODECS").filter(|v| !v.is_empty()) {
        dirs.push(PathBuf::from(v));
    }
    if let Some(exe_dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(|p| p.to_path_buf())) {
        dirs.push(exe_dir.join("codecs"));
    }
    dirs
}

/// Opens the first library named `stem*.so*` (or `.dylib`, `.dll`) in [`codec_dirs`], else the
/// first of `system` the dynamic loader finds. The library stays loaded for the process's life.
fn open(stem: &str, system: &[&str]) -> Result<&'static libloading::Library, String> {
    let mut tried = vec![];
    for dir in codec_dirs() {
        let libs = crate::dylib::libraries_in(&dir, |n| {
            n.strip_prefix(stem).is_some_and(|rest| rest.starts_with('-') || rest.starts_with('.'))
                && [".so", ".dylib", ".dll"].iter().any(|e| n.contains(e))
        });
        for path in libs {
            // SAFETY: loading a codec library runs its initialisers, which only set up tables.
            match unsafe { libloading::Library::new(&path) } {
                Ok(lib) => return Ok(Box::leak(Box::new(lib))),
                Err(e) => tried.push(format!("{}: {e}", path.display())),
            }
        }
    }
    for name in system {
        // SAFETY: as above.
        if let Ok(lib) = unsafe { libloading::Library::new(*name) } {
            return Ok(Box::leak(Box::new(lib)));
        }
    }
    Err(tried.join("; "))
}

/// Takes a function from a loaded library.
///
/// # Safety
/// `T` must be the function's type as the library's C header declares it.
unsafe fn function<T: Copy>(lib: &'static libloading::Library, name: &str) -> Result<T, String> {
    unsafe { lib.get::<T>(name.as_bytes()) }.map(|f| *f).map_err(|e| format!("{name}: {e}"))
}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: both libraries return NUL-terminated static or context-owned strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

// ---------------------------------------------------------------------------------------------
// libheif (C API of libheif 1.x, heif.h)

#[repr(C)]
struct HeifError {
    code: c_int,
    subcode: c_int,
    message: *const c_char,
}

const HEIF_COLORSPACE_RGB: c_int = 1;
const HEIF_CHROMA_INTERLEAVED_RGB: c_int = 10;
const HEIF_CHANNEL_INTERLEAVED: c_int = 10;

type Ptr = *mut c_void;

struct Heif {
    context_alloc: unsafe extern "C" fn() -> Ptr,
    context_free: unsafe extern "C" fn(Ptr),
    read_from_memory: unsafe extern "C" fn(Ptr, *const c_void, usize, *const c_void) -> HeifError,
    primary_handle: unsafe extern "C" fn(Ptr, *mut Ptr) -> HeifError,
    handle_release: unsafe extern "C" fn(Ptr),
    decode: unsafe extern "C" fn(Ptr, *mut Ptr, c_int, c_int, *const c_void) -> HeifError,
    width: unsafe extern "C" fn(Ptr, c_int) -> c_int,
    height: unsafe extern "C" fn(Ptr, c_int) -> c_int,
    plane: unsafe extern "C" fn(Ptr, c_int, *mut c_int) -> *const u8,
    image_release: unsafe extern "C" fn(Ptr),
}

fn heif() -> Result<&'static Heif, String> {
    static HEIF: OnceLock<Result<Heif, String>> = OnceLock::new();
    HEIF.get_or_init(|| {
        let lib = open("libheif", &["libheif.so.1", "libheif.1.dylib", "libheif.dll"])?;
        // SAFETY: every type below is the function's type in libheif's heif.h (1.x).
        unsafe {
            if let Ok(init) = function::<unsafe extern "C" fn(*const c_void) -> HeifError>(lib, "heif_init") {
                init(std::ptr::null());
            }
            Ok(Heif {
                context_alloc: function(lib, "heif_context_alloc")?,
                context_free: function(lib, "heif_context_free")?,
                read_from_memory: function(lib, "heif_context_read_from_memory_without_copy")?,
                primary_handle: function(lib, "heif_context_get_primary_image_handle")?,
                handle_release: function(lib, "heif_image_handle_release")?,
                decode: function(lib, "heif_decode_image")?,
                width: function(lib, "heif_image_get_width")?,
                height: function(lib, "heif_image_get_height")?,
                plane: function(lib, "heif_image_get_plane_readonly")?,
                image_release: function(lib, "heif_image_release")?,
            })
        }
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Releases a libheif object when dropped.
struct Owned(Ptr, unsafe extern "C" fn(Ptr));

impl Drop for Owned {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: the pointer came from the library's matching allocator and is released once.
            unsafe { (self.1)(self.0) }
        }
    }
}

fn decode_heic(bytes: &[u8]) -> Result<DynamicImage, Error> {
    let h = heif().map_err(|e| missing(Kind::Heic, &e))?;
    let fail = |what: &str, e: HeifError| Error::decode(format!("corrupt HEIC picture: {what}: {}", text(e.message)));
    // SAFETY: libheif's C API used as heif.h documents it; every object is released by its guard
    // before `bytes` (read without a copy) goes out of scope.
    unsafe {
        let ctx = Owned((h.context_alloc)(), h.context_free);
        if ctx.0.is_null() {
            return Err(Error::decode("HEIC: libheif could not allocate a context"));
        }
        let e = (h.read_from_memory)(ctx.0, bytes.as_ptr().cast(), bytes.len(), std::ptr::null());
        if e.code != 0 {
            return Err(fail("reading the container", e));
        }
        let mut handle = std::ptr::null_mut();
        let e = (h.primary_handle)(ctx.0, &mut handle);
        let handle = Owned(handle, h.handle_release);
        if e.code != 0 {
            return Err(fail("no primary picture", e));
        }
        // libheif turns and mirrors the picture as the container says (its default options).
        let mut img = std::ptr::null_mut();
        let e = (h.decode)(handle.0, &mut img, HEIF_COLORSPACE_RGB, HEIF_CHROMA_INTERLEAVED_RGB, std::ptr::null());
        let img = Owned(img, h.image_release);
        if e.code != 0 {
            return Err(fail("decoding", e));
        }
        let (w, h2) = ((h.width)(img.0, HEIF_CHANNEL_INTERLEAVED), (h.height)(img.0, HEIF_CHANNEL_INTERLEAVED));
        let (w, ht) = (u32::try_from(w).unwrap_or(0), u32::try_from(h2).unwrap_or(0));
        super::within_limits(w, ht)?;
        let mut stride: c_int = 0;
        let plane = (h.plane)(img.0, HEIF_CHANNEL_INTERLEAVED, &mut stride);
        if plane.is_null() || w == 0 || ht == 0 || (stride as usize) < 3 * w as usize {
            return Err(Error::decode("corrupt HEIC picture: no RGB plane"));
        }
        let mut out = RgbImage::new(w, ht);
        for (y, row) in out.chunks_exact_mut(3 * w as usize).enumerate() {
            let src = std::slice::from_raw_parts(plane.add(y * stride as usize), 3 * w as usize);
            row.copy_from_slice(src);
        }
        Ok(DynamicImage::ImageRgb8(out))
    }
}

// ---------------------------------------------------------------------------------------------
// libavif (C API of libavif 1.x, avif.h)

/// `avifRGBImage` as libavif 1.x lays it out.
#[repr(C)]
struct AvifRgbImage {
    width: u32,
    height: u32,
    depth: u32,
    format: c_int,
    chroma_upsampling: c_int,
    chroma_downsampling: c_int,
    avoid_libyuv: c_int,
    ignore_alpha: c_int,
    alpha_premultiplied: c_int,
    is_float: c_int,
    max_threads: c_int,
    pixels: *mut u8,
    row_bytes: u32,
}

const AVIF_RGB_FORMAT_RGB: c_int = 0;

struct Avif {
    decoder_create: unsafe extern "C" fn() -> Ptr,
    decoder_destroy: unsafe extern "C" fn(Ptr),
    read_memory: unsafe extern "C" fn(Ptr, Ptr, *const u8, usize) -> c_int,
    image_create_empty: unsafe extern "C" fn() -> Ptr,
    image_destroy: unsafe extern "C" fn(Ptr),
    rgb_defaults: unsafe extern "C" fn(*mut AvifRgbImage, Ptr),
    rgb_allocate: unsafe extern "C" fn(*mut AvifRgbImage) -> c_int,
    rgb_free: unsafe extern "C" fn(*mut AvifRgbImage),
    yuv_to_rgb: unsafe extern "C" fn(Ptr, *mut AvifRgbImage) -> c_int,
    result_text: unsafe extern "C" fn(c_int) -> *const c_char,
}

fn avif() -> Result<&'static Avif, String> {
    static AVIF: OnceLock<Result<Avif, String>> = OnceLock::new();
    AVIF.get_or_init(|| {
        let lib = open("libavif", &["libavif.so.16", "libavif.16.dylib", "avif.dll"])?;
        // SAFETY: every type below is the function's type in libavif's avif.h (1.x); the version
        // is checked first, since `AvifRgbImage` is laid out as 1.x lays it out.
        unsafe {
            let version = function::<unsafe extern "C" fn() -> *const c_char>(lib, "avifVersion")?;
            let v = text(version());
            if !v.starts_with("1.") {
                return Err(format!("libavif {v} found; img2fen reads AVIF with libavif 1.x"));
            }
            Ok(Avif {
                decoder_create: function(lib, "avifDecoderCreate")?,
                decoder_destroy: function(lib, "avifDecoderDestroy")?,
                read_memory: function(lib, "avifDecoderReadMemory")?,
                image_create_empty: function(lib, "avifImageCreateEmpty")?,
                image_destroy: function(lib, "avifImageDestroy")?,
                rgb_defaults: function(lib, "avifRGBImageSetDefaults")?,
                rgb_allocate: function(lib, "avifRGBImageAllocatePixels")?,
                rgb_free: function(lib, "avifRGBImageFreePixels")?,
                yuv_to_rgb: function(lib, "avifImageYUVToRGB")?,
                result_text: function(lib, "avifResultToString")?,
            })
        }
    })
    .as_ref()
    .map_err(Clone::clone)
}

fn decode_avif(bytes: &[u8]) -> Result<DynamicImage, Error> {
    let a = avif().map_err(|e| missing(Kind::Avif, &e))?;
    let fail = |what: &str, r: c_int| {
        // SAFETY: avifResultToString returns a static string for any code.
        Error::decode(format!("corrupt AVIF picture: {what}: {}", text(unsafe { (a.result_text)(r) })))
    };
    // SAFETY: libavif's C API used as avif.h documents it; every object is released by its guard.
    unsafe {
        let decoder = Owned((a.decoder_create)(), a.decoder_destroy);
        let image = Owned((a.image_create_empty)(), a.image_destroy);
        if decoder.0.is_null() || image.0.is_null() {
            return Err(Error::decode("AVIF: libavif could not allocate a decoder"));
        }
        let r = (a.read_memory)(decoder.0, image.0, bytes.as_ptr(), bytes.len());
        if r != 0 {
            return Err(fail("decoding", r));
        }
        let mut rgb: AvifRgbImage = std::mem::zeroed();
        (a.rgb_defaults)(&mut rgb, image.0);
        super::within_limits(rgb.width, rgb.height)?;
        rgb.depth = 8;
        rgb.format = AVIF_RGB_FORMAT_RGB;
        let r = (a.rgb_allocate)(&mut rgb);
        if r != 0 {
            return Err(fail("allocating", r));
        }
        let converted = (a.yuv_to_rgb)(image.0, &mut rgb);
        let out = (converted == 0).then(|| {
            let (w, h) = (rgb.width, rgb.height);
            let mut out = RgbImage::new(w, h);
            for (y, row) in out.chunks_exact_mut(3 * w as usize).enumerate() {
                let src = std::slice::from_raw_parts(rgb.pixels.add(y * rgb.row_bytes as usize), 3 * w as usize);
                row.copy_from_slice(src);
            }
            out
        });
        (a.rgb_free)(&mut rgb);
        let out = out.ok_or_else(|| fail("converting to RGB", converted))?;
        Ok(DynamicImage::ImageRgb8(out))
    }
}

/// The error for a picture whose decoder library was not found: which format, what to do.
fn missing(kind: Kind, why: &str) -> Error {
    let (lib, package) = match kind {
        Kind::Heic => ("libheif", "pillow-heif"),
        Kind::Avif => ("libavif", "pillow"),
    };
    let why = if why.is_empty() { String::new() } else { format!(" ({why})") };
    Error::decode(format!(
        "{} picture, and no {} decoder was found{why}: run scripts/fetch_codecs.sh (it fetches {lib} from \
         PyPI's {package} wheel next to img2fen) or set IMG2FEN_CODECS to a folder holding {lib}; or convert \
         the picture to JPEG or PNG first",
        kind.with_article(),
        kind.name(),
    ))
}

/// Decodes a HEIC or AVIF picture with its native library, as stored (not yet turned for AVIF).
pub fn decode(kind: Kind, bytes: &[u8]) -> Result<DynamicImage, Error> {
    match kind {
        Kind::Heic => decode_heic(bytes),
        Kind::Avif => decode_avif(bytes),
    }
}
