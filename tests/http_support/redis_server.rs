//! A `redis-server` of a test's own: a free local port, no persistence, stopped
//! when dropped. Tests that need one skip, saying so, where `redis-server` (or, for
//! TLS, `openssl`) is not installed, unless `HAWIYA_REQUIRE_REDIS` is set (as
//! `.ci/run` sets it).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct RedisServer {
    pub port: u16,
    child: Option<Child>,
    dir: tempfile::TempDir,
    /// With TLS and a password: the CA that signed the server's certificate.
    tls: Option<Tls>,
}

struct Tls {
    password: String,
    ca: PathBuf,
}

/// Whether `program` runs (asked its `version`); if not, says the test is skipped.
fn installed(program: &str, version: &str) -> bool {
    let found = Command::new(program)
        .arg(version)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !found {
        assert!(
            std::env::var_os("HAWIYA_REQUIRE_REDIS").is_none(),
            "HAWIYA_REQUIRE_REDIS is set but {program} is not installed"
        );
        eprintln!("SKIPPED: {program} is not installed (apt-get install redis-server openssl)");
    }
    found
}

impl RedisServer {
    /// Starts one, or `None` (after saying why) when `redis-server` is absent.
    pub fn start() -> Option<RedisServer> {
        installed("redis-server", "--version").then(|| RedisServer::launch(None))
    }

    /// One that speaks TLS only (a certificate for `localhost` signed by a CA of
    /// the test's own) and wants `password`.
    pub fn start_tls(password: &str) -> Option<RedisServer> {
        if !installed("redis-server", "--version") || !installed("openssl", "version") {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let openssl = |args: &[&str]| {
            let status = Command::new("openssl")
                .current_dir(dir.path())
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "openssl {args:?}");
        };
        openssl(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-subj",
            "/CN=hawiya test CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign",
        ]);
        openssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ]);
        std::fs::write(
            dir.path().join("server.ext"),
            "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
        )
        .unwrap();
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "1",
            "-out",
            "server.pem",
            "-extfile",
            "server.ext",
        ]);
        let tls = Tls {
            password: password.to_owned(),
            ca: dir.path().join("ca.pem"),
        };
        Some(RedisServer::launch(Some((dir, tls))))
    }

    fn launch(tls: Option<(tempfile::TempDir, Tls)>) -> RedisServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let (dir, tls) = match tls {
            Some((dir, tls)) => (dir, Some(tls)),
            None => (tempfile::tempdir().unwrap(), None),
        };
        let mut server = RedisServer {
            port,
            child: None,
            dir,
            tls,
        };
        server.restart();
        server
    }

    /// The CA file a client must trust to reach a TLS server.
    pub fn ca_file(&self) -> &std::path::Path {
        &self.tls.as_ref().expect("a TLS server").ca
    }

    pub fn url(&self) -> String {
        match &self.tls {
            None => format!("redis://127.0.0.1:{}", self.port),
            Some(tls) => format!("rediss://:{}@localhost:{}", tls.password, self.port),
        }
    }

    /// Kills the server: everything it held is gone.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server (again) on its port, empty, and waits until it answers.
    pub fn restart(&mut self) {
        self.stop();
        let port = self.port.to_string();
        let mut command = Command::new("redis-server");
        command
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        match &self.tls {
            None => command.args(["--port", &port]),
            Some(tls) => command
                .args([
                    "--port",
                    "0",
                    "--tls-port",
                    &port,
                    "--tls-auth-clients",
                    "no",
                ])
                .args([
                    "--tls-cert-file",
                    "server.pem",
                    "--tls-key-file",
                    "server.key",
                ])
                .args([
                    "--tls-ca-cert-file",
                    "ca.pem",
                    "--requirepass",
                    &tls.password,
                ])
                .current_dir(self.dir.path()),
        };
        self.child = Some(command.spawn().expect("redis-server starts"));
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.answers() {
            assert!(Instant::now() < deadline, "redis-server did not answer");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the server answers (a TLS one: accepts connections).
    fn answers(&self) -> bool {
        match self.tls {
            None => self.connection().is_some(),
            Some(_) => std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok(),
        }
    }

    fn connection(&self) -> Option<redis::Connection> {
        let mut con = redis::Client::open(self.url())
            .ok()?
            .get_connection()
            .ok()?;
        redis::cmd("PING").query::<()>(&mut con).ok()?;
        Some(con)
    }

    /// A connection to look at what the server holds.
    pub fn inspect(&self) -> redis::Connection {
        self.connection().expect("redis-server answers")
    }

    /// Every key the server holds (SCAN).
    pub fn keys(&self) -> Vec<String> {
        let mut con = self.inspect();
        let (mut cursor, mut keys) = (0u64, Vec::new());
        loop {
            let (next, batch): (u64, Vec<String>) =
                redis::cmd("SCAN").arg(cursor).query(&mut con).unwrap();
            keys.extend(batch);
            if next == 0 {
                break;
            }
            cursor = next;
        }
        keys.sort();
        keys
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}
