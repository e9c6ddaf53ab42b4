//! The `hawiya` binary as a script calls it: `hawiya extract` prints one JSON record
//! and says by its exit status whether the document was read.

use std::path::Path;
use std::process::{Command, Output};

fn extract(file: &Path) -> (Output, serde_json::Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_hawiya"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("extract")
        .arg(file)
        .output()
        .expect("hawiya runs");
    let record = serde_json::from_slice(&output.stdout).unwrap_or(serde_json::Value::Null);
    (output, record)
}

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/docs")
        .join(name)
}

#[test]
fn a_document_read_exits_zero_with_its_records() {
    let (output, record) = extract(&fixture("nid-front-scan.jpg"));
    assert_eq!(output.status.code(), Some(0), "{record}");
    assert_eq!(record["kind"], "nid-front");
    assert!(record["flow_a"].is_object() && record["flow_b"].is_object());
    assert!(record["total_ms"].as_f64().unwrap() > 0.0);
}

#[test]
fn a_refused_document_exits_two_with_its_reason() {
    let bytes = std::fs::read(fixture("nid-front-scan.jpg")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let truncated = dir.path().join("truncated.jpg");
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    let (output, record) = extract(&truncated);
    assert_eq!(output.status.code(), Some(2), "{record}");
    assert_eq!(record["error"]["reason"], "CORRUPT_FILE");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!text.contains("-0.0"), "no negative zero: {text}");
}

#[test]
fn a_file_that_cannot_be_opened_exits_one() {
    let (output, _) = extract(Path::new("no/such/file.jpg"));
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no/such/file.jpg"));
}

#[test]
fn overlay_draws_the_card_read_and_lists_where_each_line_was_found() {
    let dir = tempfile::tempdir().unwrap();
    let picture = dir.path().join("card.jpg");
    let output = Command::new(env!("CARGO_BIN_EXE_hawiya"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("extract")
        .arg(fixture("nid-front-scan.jpg"))
        .arg("--overlay")
        .arg(&picture)
        .output()
        .expect("hawiya runs");
    let record: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{record}");
    let overlay = &record["overlay"];
    let (width, height) = (
        overlay["width"].as_u64().unwrap(),
        overlay["height"].as_u64().unwrap(),
    );
    let drawn = image::open(&picture).expect("a JPEG is written");
    assert_eq!(
        (u64::from(drawn.width()), u64::from(drawn.height())),
        (width, height)
    );
    assert_eq!(width, 1000);
    let fields = overlay["fields"].as_array().unwrap();
    let national_id = fields
        .iter()
        .find(|f| f["key"] == "national_id")
        .expect("the national ID's line is boxed");
    assert!(
        national_id["flow_a"]
            .as_array()
            .unwrap()
            .contains(&"national_ID".into())
    );
    assert_eq!(
        national_id["confidence"],
        record["field_confidence"]["national_id"]
    );
    for field in fields {
        let b: Vec<u64> = field["box"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert!(
            b[0] < b[2] && b[2] <= width && b[1] < b[3] && b[3] <= height,
            "{field}"
        );
    }
    // The number sits in the card's lower half, right of the photo (domain.md §1.3):
    // the box is where the line was found, in the card's pixels.
    let b = &national_id["box"];
    assert!(
        b[1].as_u64().unwrap() > height / 2 && b[0].as_u64().unwrap() > width / 2,
        "{b}"
    );
}
