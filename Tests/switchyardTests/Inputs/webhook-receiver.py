"""A webhook receiver for WebhookCLITests: checks every delivery with the webhooks guide's `verify`
(imported from the directory given first), records it as a JSON line, answers 200 — except the
very first request in `hold-first` mode, which it never answers (the service is killed
meanwhile). Prints its port on the first line of stdout.

    python3 webhook-receiver.py VERIFY_DIR SECRET LOG_FILE [hold-first]
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, sys.argv[1])
from verify import verify  # noqa: E402  (the guide's snippet, as a user would paste it)

SECRET = sys.argv[2].encode()
LOG = sys.argv[3]
HOLD_FIRST = len(sys.argv) > 4 and sys.argv[4] == "hold-first"
lock = threading.Lock()
count = 0


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        global count
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        signature = self.headers.get("Switchyard-Signature", "")
        with lock:
            count += 1
            n = count
            record = {
                "n": n,
                "path": self.path,
                "event": self.headers.get("Switchyard-Event"),
                "id": self.headers.get("Switchyard-Event-Id"),
                "attempt": self.headers.get("Switchyard-Delivery-Attempt"),
                "signature": signature,
                "verified": verify(SECRET, body, signature),
                "verifiedWithAnotherBody": verify(SECRET, body + b" ", signature),
                "verifiedWithAnotherSecret": verify(b"not-the-secret-0123456789", body, signature),
                "body": body.decode(),
            }
            with open(LOG, "a") as f:
                f.write(json.dumps(record) + "\n")
        if HOLD_FIRST and n == 1:
            time.sleep(3600)
            return
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
