"""A local HTTP(S) server for the CLI's network tests (loopback only).

Usage: test-server.py [--cert CERT --key KEY]
Prints the port it listens on (127.0.0.1), then serves until its parent process exits.

  /r1            301 -> /r2
  /r2            302 -> https://twitter.com/jack/status/20   (a URL the default rules handle)
  /nohead        HEAD: 405; GET: 302 -> /r2 (a server that does not answer HEAD)
  /loop          302 -> /loop
  /slow          waits 30 s, then 200
  /big           200 with a 5 MB body
  /text          200 "hello from loopback"
  /json          200 {"id": "42", "name": "loopback"}
  /.well-known/apple-app-site-association, /.well-known/assetlinks.json   the files in $TEST_AASA / $TEST_ASSETLINKS
  /a/v1/DOMAIN   the file in $TEST_CDN_AASA with Age and Cache-Control headers (a stand-in for Apple's CDN)
  /trickle?n=N   200 with an N-byte body sent one byte a second (default 60)
  /spaced        302 -> "/text?x=a%2Fb c" (a Location with a raw space and an escape)
  /chain/N?d=S   waits S seconds, then 302 -> /chain/N-1?d=S; /chain/0 answers 200 "end of chain"
  /goto?u=URL    302 -> URL, as given (a redirect to javascript:, file:, …); &s=N answers N instead
  /stamps        each request so far as "SECONDS TARGET", SECONDS on the server's clock (when it arrived)
  /hits          how many requests the server has answered (for "no connection was made" checks)
  /seen          the request targets answered so far, one per line (as sent: escapes visible)
anything else    404
"""
import http.server, os, ssl, sys, threading, time, urllib.parse

parent = os.getppid()
def watch():
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()

hits = 0
seen = []
stamps = []
lock = threading.Lock()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass

    def reply(self, status, headers=(), body=b""):
        self.send_response(status)
        for k, v in headers: self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            try: self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError): pass

    def route(self):
        global hits
        path = self.path.split("?")[0]
        if path not in ("/hits", "/seen", "/stamps"):
            with lock:
                hits += 1
                seen.append(self.path)
                stamps.append("%.3f %s" % (time.time(), self.path))
        if path == "/r1": return self.reply(301, [("Location", "/r2")])
        if path == "/r2": return self.reply(302, [("Location", "https://twitter.com/jack/status/20")])
        if path == "/nohead":
            if self.command == "HEAD": return self.reply(405, [("Allow", "GET")])
            return self.reply(302, [("Location", "/r2")])
        if path == "/loop": return self.reply(302, [("Location", "/loop")])
        if path == "/slow":
            time.sleep(30)
            return self.reply(200, [("Content-Type", "text/plain")], b"late")
        if path == "/big": return self.reply(200, [("Content-Type", "application/json")], b"x" * (5 << 20))
        if path == "/text": return self.reply(200, [("Content-Type", "text/plain")], b"hello from loopback")
        if path == "/json": return self.reply(200, [("Content-Type", "application/json")], b'{"id": "42", "name": "loopback"}')
        if path == "/trickle":
            n = int(self.path.partition("n=")[2] or "60")
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(n))
            self.send_header("Connection", "close")
            self.end_headers()
            for _ in range(n):
                try:
                    self.wfile.write(b"x"); self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return
                time.sleep(1)
            return
        if path.startswith("/chain/"):
            n = int(path.split("/")[2])
            d = float(urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("d", ["0"])[0])
            time.sleep(d)
            if n <= 0: return self.reply(200, [("Content-Type", "text/plain")], b"end of chain")
            return self.reply(302, [("Location", "/chain/%d?d=%s" % (n - 1, d))])
        if path == "/goto":
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            return self.reply(int(query.get("s", ["302"])[0]), [("Location", query["u"][0])])
        if path == "/stamps":
            with lock: listed = "\n".join(stamps)
            return self.reply(200, [("Content-Type", "text/plain")], listed.encode())
        if path == "/spaced": return self.reply(302, [("Location", "/text?x=a%2Fb c")])
        if path == "/seen":
            with lock: listed = "\n".join(seen)
            return self.reply(200, [("Content-Type", "text/plain")], listed.encode())
        if path == "/hits": return self.reply(200, [("Content-Type", "text/plain")], str(hits).encode())
        for name, env in (("/.well-known/apple-app-site-association", "TEST_AASA"), ("/.well-known/assetlinks.json", "TEST_ASSETLINKS")):
            if path == name and os.environ.get(env):
                return self.reply(200, [("Content-Type", "application/json")], open(os.environ[env], "rb").read())
        if path.startswith("/a/v1/") and os.environ.get("TEST_CDN_AASA"):
            # A stand-in for Apple's CDN: its copy, with the age headers the CDN sends.
            return self.reply(200, [("Content-Type", "application/json"), ("Age", "86400"), ("Cache-Control", "max-age=3600")],
                              open(os.environ["TEST_CDN_AASA"], "rb").read())
        self.reply(404, [("Content-Type", "text/plain")], b"not found")

    do_GET = route
    do_HEAD = route

class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default backlog is 5: a batch's concurrent connections beyond it wait for a
    # SYN retransmission (1 s), which would be measured as the client's slowness.
    request_queue_size = 256

server = Server(("127.0.0.1", 0), Handler)
if "--cert" in sys.argv:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[sys.argv.index("--cert") + 1], sys.argv[sys.argv.index("--key") + 1])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
