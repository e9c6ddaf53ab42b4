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
