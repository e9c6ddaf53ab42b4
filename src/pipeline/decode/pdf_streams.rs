//! A PDF's streams, decoded once and within bounds before its page is rendered.
//!
//! The rasteriser (hayro) inflates whatever it draws with no bound, so a few
//! kilobytes of Flate data declared as a 100 × 100 image could cost gigabytes.
//! Every stream the first page reaches is therefore decoded here, through lopdf's
//! bounded decoders, and stored decoded, so the rasteriser reads plain bytes of a
//! known size. An image stream may decode to no more than its declared pixels
//! allow; any other stream to `max_pdf_stream_bytes`; all of them together to
//! `max_pdf_decoded_bytes`. Image codecs (DCT, JPX, JBIG2, CCITT) stay encoded, and
//! the size each declares is checked against the pixel limits. Streams the page
//! does not reach, and streams that do not decode, are emptied: nothing is left for
//! the rasteriser to inflate.
//!
//! Inline images (inside content streams) cannot be stored decoded, so they are
//! bounded by the most their encoded bytes could expand to through their filters.

use std::collections::HashSet;

use hayro::hayro_syntax::Filter as InlineFilter;
use hayro::hayro_syntax::content::UntypedIter;
use lopdf::{DecompressError, Dictionary, Document, Object, ObjectId, Stream};

use super::pdf::{corrupt, inherited};
use super::{DecodeError, DecodeLimits, Format, check_pixels, raster};

/// What an image may hold beyond its declared pixels at 8 bytes each (16-bit CMYK,
/// the widest common sample): row padding and producers' slack.
const IMAGE_SLACK: u64 = 64 << 10;

/// Decodes, in place, every stream the page `page_id` uses, within the limits, and
/// empties every other stream.
pub(super) fn bound(
    doc: &mut Document,
    page_id: ObjectId,
    limits: &DecodeLimits,
) -> Result<(), DecodeError> {
    let reached = reached_from(doc, page_id);
    let streams: Vec<ObjectId> = doc
        .objects
        .iter()
        .filter(|(_, object)| matches!(object, Object::Stream(_)))
        .map(|(&id, _)| id)
        .collect();
    let mut total = 0usize;
    for id in streams {
        let plan = if reached.contains(&id) {
            plan(doc, id, limits)?
        } else {
            None
        };
        let Ok(Object::Stream(stream)) = doc.get_object_mut(id) else {
            continue;
        };
        let decoded = match plan {
            Some(plan) => decode(id, stream, &plan)?,
            None => None,
        };
        let Some(decoded) = decoded else {
            stream.set_plain_content(Vec::new());
            continue;
        };
        total += decoded.content.len();
        if let Some(codec) = &decoded.codec {
            codec.check(&decoded.content, limits)?;
        } else if decoded.content.windows(2).any(|w| w == b"BI") {
            total = total.saturating_add(inline_images(id, &decoded.content, limits)?);
        }
        if total > limits.max_pdf_decoded_bytes {
            return Err(DecodeError::PdfTooMuchData {
                limit: limits.max_pdf_decoded_bytes,
            });
        }
        store(stream, decoded);
    }
    Ok(())
}

/// The objects the page reaches: everything its dictionary and inherited resources
/// refer to, directly or not, except through `/Parent` (which leads to every page).
fn reached_from(doc: &Document, page_id: ObjectId) -> HashSet<ObjectId> {
    let page = Object::Reference(page_id);
    let mut todo: Vec<&Object> = vec![&page];
    todo.extend(inherited(doc, page_id, b"Resources"));
    let mut seen = HashSet::new();
    while let Some(object) = todo.pop() {
        let dict = match object {
            Object::Reference(id) => {
                if seen.insert(*id)
                    && let Ok(target) = doc.get_object(*id)
                {
                    todo.push(target);
                }
                continue;
            }
            Object::Array(items) => {
                todo.extend(items);
                continue;
            }
            Object::Dictionary(dict) => dict,
            Object::Stream(stream) => &stream.dict,
            _ => continue,
        };
        todo.extend(
            dict.iter()
                .filter(|(key, _)| key.as_slice() != b"Parent")
                .map(|(_, value)| value),
        );
    }
    seen
}

struct DecodePlan {
    /// The general-purpose filters (compression and ASCII encodings), in order.
    filters: Vec<Object>,
    /// Their parameters, as `DecodeParms` gives them to lopdf.
    params: Option<Object>,
    /// The most bytes they may produce.
    limit: usize,
    /// The image codec applied last, if any, with its own parameters.
    codec: Option<(Codec, Option<Object>)>,
}

/// An image codec a PDF stream may end with; the rasteriser decodes it.
#[derive(Debug, Clone, Copy)]
enum Codec {
    Dct,
    Jpx,
    Jbig2,
    /// CCITT fax data `columns` wide and as tall as its image.
    Ccitt {
        columns: u64,
        rows: u64,
    },
}

impl Codec {
    fn name(self) -> &'static str {
        match self {
            Codec::Dct => "DCTDecode",
            Codec::Jpx => "JPXDecode",
            Codec::Jbig2 => "JBIG2Decode",
            Codec::Ccitt { .. } => "CCITTFaxDecode",
        }
    }

    /// Refuses encoded data whose own header declares more pixels than the limits.
    fn check(self, data: &[u8], limits: &DecodeLimits) -> Result<(), DecodeError> {
        let (width, height) = match self {
            Codec::Dct => {
                let (w, h) = raster::jpeg_header(data)?;
                (u64::from(w), u64::from(h))
            }
            Codec::Jpx => {
                let settings = hayro_jpeg2000::DecodeSettings::default();
                let image = hayro_jpeg2000::Image::new(data, &settings)
                    .map_err(|e| corrupt(format!("JPEG 2000 image: {e}")))?;
                (u64::from(image.width()), u64::from(image.height()))
            }
            Codec::Jbig2 => {
                let settings = hayro_jbig2::DecodeSettings { strict: false };
                let page = hayro_jbig2::Page::new_embedded(data, None, &settings)
                    .map_err(|e| corrupt(format!("JBIG2 image: {e}")))?;
                (u64::from(page.width()), u64::from(page.height()))
            }
            Codec::Ccitt { columns, rows } => (columns, rows),
        };
        check_pixels(Format::Pdf, width, height, limits)
    }
}

/// The full name of a filter, abbreviations (meant for inline images, sometimes
/// written in streams) included, and whether it is an image codec.
fn filter_name(name: &[u8]) -> Option<(&'static str, bool)> {
    Some(match name {
        b"FlateDecode" | b"Fl" => ("FlateDecode", false),
        b"LZWDecode" | b"LZW" => ("LZWDecode", false),
        b"ASCIIHexDecode" | b"AHx" => ("ASCIIHexDecode", false),
        b"ASCII85Decode" | b"A85" => ("ASCII85Decode", false),
        b"RunLengthDecode" | b"RL" => ("RunLengthDecode", false),
        b"DCTDecode" | b"DCT" => ("DCTDecode", true),
        b"JPXDecode" => ("JPXDecode", true),
        b"JBIG2Decode" => ("JBIG2Decode", true),
        b"CCITTFaxDecode" | b"CCF" => ("CCITTFaxDecode", true),
        _ => return None,
    })
}

/// How stream `id` is to be decoded, from its dictionary; `None` when it holds
/// nothing the rasteriser could draw (it is then emptied).
fn plan(
    doc: &Document,
    id: ObjectId,
    limits: &DecodeLimits,
) -> Result<Option<DecodePlan>, DecodeError> {
    let Ok(Object::Stream(stream)) = doc.get_object(id) else {
        return Ok(None);
    };
    let dict = &stream.dict;
    let resolve = |key: &[u8]| {
        dict.get(key)
            .ok()
            .and_then(|v| doc.dereference(v).ok())
            .map(|(_, v)| v)
    };
    let integer = |key: &[u8]| resolve(key).and_then(|v| v.as_i64().ok());
    let names: Vec<&[u8]> = match resolve(b"Filter") {
        None => Vec::new(),
        Some(Object::Name(name)) => vec![name.as_slice()],
        Some(Object::Array(items)) => {
            let names: Option<Vec<&[u8]>> = items.iter().map(|i| i.as_name().ok()).collect();
            let Some(names) = names else {
                return Ok(None);
            };
            names
        }
        Some(_) => return Ok(None),
    };
    let mut filters = Vec::new();
    let mut codec_name = None;
    for (i, name) in names.iter().enumerate() {
        let Some((full, is_codec)) = filter_name(name) else {
            // A filter no decoder here knows (Crypt, a typo): nothing to draw.
            return Ok(None);
        };
        if is_codec {
            if i + 1 != names.len() {
                return Err(corrupt(format!(
                    "object {} {}: {full} is not the last filter",
                    id.0, id.1
                )));
            }
            codec_name = Some(full);
        } else {
            filters.push(Object::Name(full.as_bytes().to_vec()));
        }
    }
    let params = resolve(b"DecodeParms").cloned();
    let (params, codec_params) = match params {
        Some(Object::Array(mut all)) if codec_name.is_some() => {
            let last = all.pop();
            all.truncate(filters.len());
            (Some(Object::Array(all)), last)
        }
        Some(Object::Dictionary(d)) if codec_name.is_some() => (None, Some(Object::Dictionary(d))),
        other => (other, None),
    };
    let is_image = resolve(b"Subtype").and_then(|v| v.as_name().ok()) == Some(b"Image");
    let declared = if is_image {
        let (Some(width), Some(height)) = (integer(b"Width"), integer(b"Height")) else {
            return Ok(None);
        };
        let (width, height) = (width.max(0) as u64, height.max(0) as u64);
        check_pixels(Format::Pdf, width, height, limits)?;
        Some((width, height))
    } else {
        None
    };
    let codec = match codec_name {
        None => None,
        Some(_) if declared.is_none() => return Ok(None),
        Some("DCTDecode") => Some(Codec::Dct),
        Some("JPXDecode") => Some(Codec::Jpx),
        Some("JBIG2Decode") => Some(Codec::Jbig2),
        Some(_) => {
            let columns = codec_params
                .as_ref()
                .and_then(|p| p.as_dict().ok())
                .and_then(|p| p.get(b"Columns").ok())
                .and_then(|c| c.as_i64().ok())
                .unwrap_or(1728);
            let rows = declared.map_or(0, |(_, h)| h);
            Some(Codec::Ccitt {
                columns: columns.max(0) as u64,
                rows,
            })
        }
    };
    let limit = match declared {
        Some((width, height)) if codec.is_none() => {
            usize::try_from(width * height * 8 + IMAGE_SLACK).unwrap_or(usize::MAX)
        }
        _ => limits.max_pdf_stream_bytes,
    };
    Ok(Some(DecodePlan {
        filters,
        params,
        limit,
        codec: codec.map(|c| (c, codec_params)),
    }))
}

/// A stream's content after its general-purpose filters.
struct Decoded {
    content: Vec<u8>,
    codec: Option<Codec>,
    codec_params: Option<Object>,
}

/// Decodes stream `id` by `plan`; `None` when it does not decode (it is then
/// emptied, as the rasteriser could not draw it either).
fn decode(
    id: ObjectId,
    stream: &mut Stream,
    plan: &DecodePlan,
) -> Result<Option<Decoded>, DecodeError> {
    let raw = std::mem::take(&mut stream.content);
    let content = if plan.filters.is_empty() {
        raw
    } else {
        let mut dict = Dictionary::new();
        dict.set("Filter", Object::Array(plan.filters.clone()));
        if let Some(params) = &plan.params {
            dict.set("DecodeParms", params.clone());
        }
        match Stream::new(dict, raw).decompressed_content_with_limit(plan.limit) {
            Ok(content) => content,
            Err(lopdf::Error::Decompress(
                DecompressError::MemoryLimitExceeded { .. }
                | DecompressError::TooManyFilters { .. },
            )) => {
                return Err(DecodeError::PdfStreamTooLarge {
                    object: format!("{} {}", id.0, id.1),
                    limit: plan.limit,
                });
            }
            Err(_) => return Ok(None),
        }
    };
    let (codec, codec_params) = match &plan.codec {
        Some((codec, params)) => (Some(*codec), params.clone()),
        None => (None, None),
    };
    Ok(Some(Decoded {
        content,
        codec,
        codec_params,
    }))
}

/// Puts a decoded stream back, keeping only its codec (if any) as filter.
fn store(stream: &mut Stream, decoded: Decoded) {
    stream.set_plain_content(decoded.content);
    if let Some(codec) = decoded.codec {
        stream
            .dict
            .set("Filter", Object::Name(codec.name().as_bytes().to_vec()));
        if let Some(params) = decoded.codec_params {
            stream.dict.set("DecodeParms", params);
        }
    }
}

/// The most one byte can expand to through `filter`: DEFLATE 1032 (a 258-byte
/// match in two bits), LZW 4096 (its longest string from a 9-bit code, rounded up),
/// run-length 64, ASCII85 4 (`z`), hexadecimal 1; `None` for an image codec.
fn expansion(filter: InlineFilter) -> Option<u64> {
    match filter {
        InlineFilter::FlateDecode => Some(1032),
        InlineFilter::LzwDecode => Some(4096),
        InlineFilter::RunLengthDecode => Some(64),
        InlineFilter::Ascii85Decode => Some(4),
        InlineFilter::AsciiHexDecode => Some(1),
        _ => None,
    }
}

/// Checks the inline images of content stream `id` (decoded `content`) and returns
/// the most they can decode to together: each must declare a size within the pixel
/// limits, and the most its encoded bytes can expand to through its filters must
/// stay within `max_pdf_stream_bytes`, since the rasteriser decodes them itself.
fn inline_images(
    id: ObjectId,
    content: &[u8],
    limits: &DecodeLimits,
) -> Result<usize, DecodeError> {
    let too_large = || DecodeError::PdfStreamTooLarge {
        object: format!("{} {} (an inline image)", id.0, id.1),
        limit: limits.max_pdf_stream_bytes,
    };
    let mut total = 0u64;
    let mut ops = UntypedIter::new(content);
    while let Some(op) = ops.next() {
        if **op.operator != *b"BI" {
            continue;
        }
        for operand in op.operands() {
            let hayro::hayro_syntax::object::Object::Stream(image) = operand else {
                continue;
            };
            let dict = image.dict();
            let dim = |short: &[u8], long: &[u8]| {
                dict.get::<i64>(short)
                    .or_else(|| dict.get::<i64>(long))
                    .unwrap_or(0)
                    .max(0) as u64
            };
            let (width, height) = (dim(b"W", b"Width"), dim(b"H", b"Height"));
            check_pixels(Format::Pdf, width, height, limits)?;
            let filters = image.filters();
            let most = if filters.as_slice() == [InlineFilter::DctDecode] {
                let (w, h) = raster::jpeg_header(&image.raw_data())?;
                check_pixels(Format::Pdf, u64::from(w), u64::from(h), limits)?;
                u64::from(w) * u64::from(h) * 8
            } else {
                let mut most = image.raw_data().len() as u64;
                for filter in filters {
                    let ratio = expansion(filter).ok_or_else(|| {
                        corrupt(format!("an inline image is encoded with {filter:?}"))
                    })?;
                    most = most.saturating_mul(ratio);
                }
                most
            };
            if most > limits.max_pdf_stream_bytes as u64 {
                return Err(too_large());
            }
            total += most;
        }
    }
    usize::try_from(total).map_err(|_| too_large())
}
