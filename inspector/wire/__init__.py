"""The wire layer both the engine and the transports stand on: frames as ``WireEvent``s,
the JSON-RPC codec and the transport interface. Imports nothing above it."""
