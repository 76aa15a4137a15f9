"""A real Redfish service over HTTPS on 127.0.0.1, for the power-meter tests.

No maintained Redfish emulator installs from PyPI (DMTF's Redfish-Mockup-Server and
Redfish-Interface-Emulator are not published there; sushy-tools serves no power resources), so
this is the smallest real thing: ``http.server`` behind ``ssl`` with a self-signed certificate
made with ``cryptography``, serving mockups laid out as DMTF's mockup server lays them out
(``<mockup>/<path under /redfish/v1>/index.json``, in ``redfish/`` next to this module). HTTP Basic
authentication is required for everything but the service root, as the specification says.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MOCKUPS = Path(__file__).resolve().parent / "redfish"


def make_certificate(folder: Path, host: str = "localhost") -> tuple[Path, Path]:
    """A self-signed certificate for ``host`` and 127.0.0.1: (certificate, key) PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(host), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path = folder / "bmc-cert.pem"
    key_path = folder / "bmc-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def load_mockup(name: str) -> dict[str, dict[str, Any]]:
    """Every resource of a mockup by its URI (``/redfish/v1/Chassis/1U`` ...)."""
    base = MOCKUPS / name
    docs = {}
    for index in base.rglob("index.json"):
        rel = index.parent.relative_to(base).as_posix()
        uri = "/redfish/v1" if rel == "." else f"/redfish/v1/{rel}"
        docs[uri] = json.loads(index.read_text(encoding="utf-8"))
    return docs


class RedfishService:
    """Serves one mockup over HTTPS; ``docs`` may be changed while it runs (new readings)."""

    def __init__(self, mockup: str, folder: Path, user: str = "root", password: str = "calvin"):
        self.docs = load_mockup(mockup)
        self.user = user
        self.password = password
        self.requests: list[str] = []
        self.cert, self.key = make_certificate(folder)
        self._lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as BMCs do

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, doc: dict[str, Any]) -> None:
                body = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json;charset=utf-8")
                self.send_header("OData-Version", "4.0")
                self.send_header("Content-Length", str(len(body)))
                if status == 401:
                    self.send_header("WWW-Authenticate", 'Basic realm="Redfish"')
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                path = self.path.split("?")[0].rstrip("/") or "/"
                service.requests.append(path)
                if path != "/redfish/v1" and not self._authorised():
                    self._send(401, _error("Base.1.8.NoValidSession", "Authentication required"))
                    return
                with service._lock:
                    doc = service.docs.get(path)
                    body = None if doc is None else json.loads(json.dumps(doc))
                if body is None:
                    self._send(404, _error("Base.1.8.ResourceMissingAtURI", f"{path} not found"))
                else:
                    self._send(200, body)

            def _authorised(self) -> bool:
                header = self.headers.get("Authorization", "")
                if not header.startswith("Basic "):
                    return False
                try:
                    user, _, password = base64.b64decode(header[6:]).decode().partition(":")
                except ValueError:
                    return False
                return user == service.user and password == service.password

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, self.key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def set(self, uri: str, *keys: str | int, value: Any) -> None:
        """Change one property of a resource, e.g. ``set(uri, "PowerWatts", "Reading", 400)``."""
        with self._lock:
            node: Any = self.docs[uri]
            for key in keys[:-1]:
                node = node[key]
            node[keys[-1]] = value

    def __enter__(self) -> RedfishService:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=10)


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}
