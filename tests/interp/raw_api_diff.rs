//! The raw-api arm still does everything an agent needs against the forge,
//! exactly as bash does: GET with headers, POST with `-d @file`, PATCH,
//! `-o` into the work folder, `--fail` on an error status, `-w
//! '%{http_code}'`. Real curl, a loopback forge the test owns; guard-sh
//! (Landlock and the exec supervisor on, in the arm's work folder) and bash
//! run each line over the same starting files, and their stdout, status
//! and written files must agree.

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;

/// A forge that answers `METHOD PATH` with a JSON echo of the method, the
/// path, the body's length and the `X-Test` header; `/missing` is a 404.
fn forge() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            let mut length = 0;
            let mut header = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if let Some(v) = line.strip_prefix("X-Test:") {
                    header = v.trim().to_string();
                }
            }
            let mut body = vec![0u8; length];
            let _ = reader.read_exact(&mut body);
            let mut parts = request.split_whitespace();
            let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            let (status, text) = if path == "/api/v1/missing" {
                ("404 Not Found", "{\"message\":\"not found\"}".to_string())
            } else {
                (
                    "200 OK",
                    format!(
                        "{{\"method\":\"{method}\",\"path\":\"{path}\",\"body\":{length},\"x\":\"{header}\"}}"
                    ),
                )
            };
            let mut stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    port
}

fn copy_work(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

fn files(dir: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn raw_api_requests_agree_with_bash() {
    let root = tempfile::tempdir().unwrap();
    let port = forge();
    let base = format!("http://127.0.0.1:{port}/api/v1");
    let arm = common::build_arm("raw-api", &format!("http://127.0.0.1:{port}"), root.path());
    let template = root.path().join("template");
    std::fs::create_dir(&template).unwrap();
    std::fs::write(template.join("body.json"), "{\"title\":\"x\"}").unwrap();
    let bash = common::system_program("bash").expect("bash");
    let lines = [
        format!("curl -s -H 'X-Test: hello' {base}/repos/o/r/issues"),
        format!(
            "curl -s -X POST -H 'Content-Type: application/json' -d @body.json {base}/repos/o/r/issues"
        ),
        format!(
            "curl -s -X PATCH -d '{{\"state\":\"closed\"}}' {base}/repos/o/r/issues/1 | jq -r .method"
        ),
        format!("curl -s -o out.json {base}/user && jq -r .path out.json"),
        format!("curl -s -o /dev/null -w '%{{http_code}}\\n' {base}/missing"),
        format!("curl -sf {base}/missing; echo \"status=$?\""),
        format!("curl -s {base}/user | jq -c '{{m: .method}}'"),
    ];
    for (i, line) in lines.iter().enumerate() {
        // guard-sh works in the arm's own work folder (its writable root),
        // emptied for each line; bash in a folder of its own.
        let mine = arm.join("work");
        std::fs::remove_dir_all(&mine).unwrap();
        let theirs = root.path().join(format!("b{i}"));
        copy_work(&template, &mine);
        copy_work(&template, &theirs);
        let guarded = Command::new(common::guard_sh())
            .args(["-c", line])
            .env_clear()
            .env("GUARD_SH_POLICY", arm.join("policy.json"))
            .current_dir(&mine)
            .output()
            .unwrap();
        let reference = Command::new(&bash)
            .args(["--norc", "--noprofile", "-c", line])
            .env_clear()
            .env("PATH", arm.join("bin"))
            .current_dir(&theirs)
            .output()
            .unwrap();
        assert_eq!(
            (common::text(&guarded.stdout), guarded.status.code()),
            (common::text(&reference.stdout), reference.status.code()),
            "{line}: guard-sh stderr {}",
            common::text(&guarded.stderr)
        );
        assert!(
            !common::text(&guarded.stdout).is_empty(),
            "{line}: no output"
        );
        assert_eq!(files(&mine), files(&theirs), "{line}: files differ");
    }
}
