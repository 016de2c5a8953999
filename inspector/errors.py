"""The one base of every error mcp-inspect raises on purpose, and the tree under it.

    InspectorError                  every error below; ``except InspectorError`` catches ours
    ├── ConfigError                 config: a config file cannot be used
    ├── SessionFileError            record.format: a session file cannot be read
    │   └── NewerFormatError        record.format: written by a newer mcp-inspect
    ├── StateFileError              record.state: a state file (eras.json...) cannot be used
    ├── PathError                   replay.diff: an --ignore path that does not parse (a ValueError)
    ├── TransportError              wire.transport: a transport cannot start or carry a frame
    ├── RedirectRefused             transports.httpwire: a redirect to another origin, refused
    ├── LimitExceeded               transports.aioconn: a read found no delimiter (a ValueError)
    ├── SseError                    transports.sse_parser: an SSE stream cannot be parsed further
    ├── Terminal                    transports.httpstreams: a stream cannot continue
    ├── WatchdogGone                transports.lifeline: it ended before it started a server
    ├── VersionError                engine.era: a protocol version this client does not speak
    ├── RpcError                    wire.jsonrpc: a JSON-RPC error, or a local failure as one
    │   ├── ConnectionClosedError   engine.request_errors: the connection ended before the response
    │   │   └── ServerExitedOnProbe engine.request_errors: it ended on server/discover (restart it)
    │   ├── RequestTimeoutError     engine.request_errors: no response within the timeout
    │   └── RequestCancelledError   engine.request_errors: the request was cancelled
    ├── ProxyError                  proxy.run: the proxy could not start
    ├── RuntimeDirError             proxy.runtime: the attach socket's folder is not safe to use
    ├── ChannelError                proxy.channel: an attach socket's peer broke the protocol
    ├── HttpError                   proxy.httpserve: a request to the HTTP front cannot be read
    ├── AuthError                   auth.errors: an OAuth flow's step failed (which, and why)
    ├── StoreError                  auth.errors: the OAuth token file cannot be read or written
    ├── OptionError                 auth.errors: a bad OAuth flag or config value (a ValueError)
    ├── PrivateKeyError             auth.errors: a private key that cannot sign (a ValueError)
    ├── HarError                    export.har_import: a file that is not a HAR this can read
    ├── OtelMissing                 export.otlp_sdk: the otel extra is not installed
    ├── ExportFailed                export.otlp_sdk: the OTLP exporter refused the spans
    ├── LoadError                   load.runner: a load run could not start
    ├── WorkloadError               load.workload: a workload file that cannot be used
    ├── CompareError                load.report: --compare names no earlier run's JSON
    ├── CallFailed                  locust.user: a call's failure as Locust reports it
    ├── SkillVerificationError      skills.client: a skill file that does not match its entry
    ├── SkillNotFoundError          skills.client: no entry for a skill URI
    ├── CollectionFileError         collection.model: a collection file that cannot be run
    ├── MissingVariable             collection.interpolate: a ${name} with no value (a KeyError)
    ├── StepFailed                  pytest_plugin: a collection step whose expectations failed
    ├── ConnectFailed               pytest_plugin.live: the fixture's server could not be opened
    ├── UsageError                  commands.options: a wrong flag, a missing file
    ├── CliError                    commands.failures: a failure as the command line reports it
    ├── BridgeError                 bridge.connections: a bridge tool failed (an isError result)
    ├── UnsupportedSchema           forms.fastcheck: a schema left to jsonschema (never escapes)
    ├── NotJson                     forms.strict_json: typed text that is JSON only to Python
    └── Cancelled                   demo.context: the demo server's request was cancelled

Each class lives with the code that raises it (the module named above) and keeps its
name; this module imports nothing, so every part of the package may derive from it.
The command line's exit codes are mapped from this tree in one place,
``inspector.commands.failures.EXIT_CODES``: a failure takes the code of its nearest
class there (its own, else its parent's...).

Adding an error: derive it from the nearest class above (or from ``InspectorError``),
add its line to this drawing, and give it a row in ``EXIT_CODES`` when its exit code
is not its parent's. ``tests/test_errors.py`` checks that every exception class in the
package derives from ``InspectorError`` and that this drawing names each one.
"""

from __future__ import annotations


class InspectorError(Exception):
    """Base of every error mcp-inspect raises on purpose (see the tree above)."""
