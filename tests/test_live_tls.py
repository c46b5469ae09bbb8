"""TLS against the fake API server, with real certificates made by ``trustme``.

Each failure must say what is wrong with *this* kubeconfig: no certificate-authority set (and the
system CAs do not trust the server), a certificate-authority that did not sign the server's
certificate, a server address the certificate does not name, a client certificate missing or
not trusted by the server.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import pytest
import trustme
from fake_apiserver import FakeApiServer
from test_live import fetch, small_cluster

from wapctl.errors import ClusterError, ExitCode


@pytest.fixture(autouse=True)
def _no_ambient_kubeconfig(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    # the system CA store must not decide the outcome (trustme's CAs are never in it)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


def _server_context(cert: trustme.LeafCert, client_ca: trustme.CA | None = None) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert.configure_cert(context)
    if client_ca is not None:
        client_ca.configure_trust(context)
        context.verify_mode = ssl.CERT_REQUIRED
    return context


def _pem(tmp_path: Path, name: str, blob: Any) -> str:
    path = tmp_path / name
    blob.write_to_path(str(path))
    return str(path)


def _fail(kubeconfig: Path) -> str:
    with pytest.raises(ClusterError) as caught:
        fetch(kubeconfig, timeout=5)
    assert ExitCode.CLUSTER == caught.value.exit_code
    message = str(caught.value)
    assert 1 == len(message.splitlines())
    return message


def test_trusted_ca_lists_the_cluster(apiserver, tmp_path, ca):
    """certificate-authority set to the CA that signed the server's certificate: it works."""
    fake = apiserver(small_cluster(), tls=_server_context(ca.issue_cert("127.0.0.1")))
    kc = fake.write_kubeconfig(tmp_path / "kc", extra_cluster={
        "certificate-authority": _pem(tmp_path, "ca.pem", ca.cert_pem)})
    assert 10 == len(fetch(kc))


def test_trusted_ca_as_data_lists_the_cluster(apiserver, tmp_path, ca):
    """certificate-authority-data (base64 PEM inline) works the same."""
    import base64

    fake = apiserver(small_cluster(), tls=_server_context(ca.issue_cert("127.0.0.1")))
    data = base64.b64encode(ca.cert_pem.bytes()).decode()
    kc = fake.write_kubeconfig(tmp_path / "kc",
                               extra_cluster={"certificate-authority-data": data})
    assert 10 == len(fetch(kc))


def test_no_certificate_authority_and_an_untrusted_server(apiserver, tmp_path, ca):
    """A self-signed/private-CA server and a kubeconfig without certificate-authority: the
    message says the kubeconfig sets none."""
    fake = apiserver(small_cluster(), tls=_server_context(ca.issue_cert("127.0.0.1")))
    message = _fail(fake.write_kubeconfig(tmp_path / "kc"))
    assert message.startswith(f"cluster {fake.url}: TLS failure: ")
    assert "the kubeconfig sets no certificate-authority for this cluster" in message
    assert "certificate verify failed" in message


def test_certificate_authority_that_did_not_sign_the_server(apiserver, tmp_path, ca):
    """certificate-authority names another CA: the message names that CA file and says it did
    not sign the server's certificate."""
    fake = apiserver(small_cluster(), tls=_server_context(ca.issue_cert("127.0.0.1")))
    other = _pem(tmp_path, "other-ca.pem", trustme.CA().cert_pem)
    message = _fail(fake.write_kubeconfig(tmp_path / "kc",
                                          extra_cluster={"certificate-authority": other}))
    assert f"the kubeconfig's certificate-authority {other} did not sign the server's " \
           "certificate" in message


def test_hostname_mismatch(apiserver, tmp_path, ca):
    """The certificate names only example.test, the kubeconfig says 127.0.0.1: the message says
    the certificate does not name that address and points at tls-server-name."""
    fake = apiserver(small_cluster(), tls=_server_context(ca.issue_cert("example.test")))
    message = _fail(fake.write_kubeconfig(tmp_path / "kc", extra_cluster={
        "certificate-authority": _pem(tmp_path, "ca.pem", ca.cert_pem)}))
    assert "the server's certificate is not valid for 127.0.0.1" in message
    assert "tls-server-name" in message


def test_tls_server_name_fixes_a_hostname_mismatch(apiserver, tmp_path, ca):
    """tls-server-name set to the name on the certificate: it works (kubectl's fix)."""
    fake = apiserver(small_cluster(), tls=_server_context(ca.issue_cert("example.test")))
    kc = fake.write_kubeconfig(tmp_path / "kc", extra_cluster={
        "certificate-authority": _pem(tmp_path, "ca.pem", ca.cert_pem),
        "tls-server-name": "example.test"})
    assert 10 == len(fetch(kc))


def test_client_certificate_authenticates(tmp_path, ca):
    """A server that requires client certificates: the kubeconfig's client-certificate and
    client-key authenticate (no token), and the server sees the certificate's CN as the user."""
    client_ca = trustme.CA()
    client = client_ca.issue_cert("wapctl-reader", common_name="wapctl-reader")
    tls = _server_context(ca.issue_cert("127.0.0.1"), client_ca)
    with FakeApiServer(small_cluster(), tls=tls, token="never-sent") as fake:
        kc = fake.write_kubeconfig(tmp_path / "kc", token="", extra_cluster={
            "certificate-authority": _pem(tmp_path, "ca.pem", ca.cert_pem)}, extra_user={
            "client-certificate": _pem(tmp_path, "client.pem", client.cert_chain_pems[0]),
            "client-key": _pem(tmp_path, "client.key", client.private_key_pem)})
        assert 10 == len(fetch(kc))


def test_client_certificate_missing(tmp_path, ca):
    """The server requires a client certificate and the kubeconfig's user has none: said so."""
    tls = _server_context(ca.issue_cert("127.0.0.1"), trustme.CA())
    with FakeApiServer(small_cluster(), tls=tls) as fake:
        message = _fail(fake.write_kubeconfig(tmp_path / "kc", extra_cluster={
            "certificate-authority": _pem(tmp_path, "ca.pem", ca.cert_pem)}))
    assert "it likely requires a client certificate, and the kubeconfig's user has no " \
           "client-certificate" in message


def test_client_certificate_not_trusted_by_the_server(tmp_path, ca):
    """A client certificate from a CA the server does not trust: the message names the file."""
    tls = _server_context(ca.issue_cert("127.0.0.1"), trustme.CA())
    stranger = trustme.CA().issue_cert("someone")
    cert = _pem(tmp_path, "client.pem", stranger.cert_chain_pems[0])
    with FakeApiServer(small_cluster(), tls=tls) as fake:
        message = _fail(fake.write_kubeconfig(tmp_path / "kc", token="", extra_cluster={
            "certificate-authority": _pem(tmp_path, "ca.pem", ca.cert_pem)}, extra_user={
            "client-certificate": cert,
            "client-key": _pem(tmp_path, "client.key", stranger.private_key_pem)}))
    # TLS 1.3 checks the client certificate after the client's half of the handshake, so the
    # client sees either the server's "unknown ca" alert or the connection ending: both name it
    assert f"the kubeconfig's client-certificate {cert}" in message
    assert "rejected" in message
