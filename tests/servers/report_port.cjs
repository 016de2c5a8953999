// Preloaded into server-everything (`node --require report_port.cjs ...`) by
// tests/servers/http_support.py. Given PORT=0 the server listens on a port the kernel picks
// but logs "port 0", so this writes the port it really got to the file named by
// MCP_TEST_PORT_FILE (whole: written aside, then renamed). A port chosen before the server
// starts could be taken by another test process in between; this one cannot.
const fs = require("fs");
const net = require("net");

const file = process.env.MCP_TEST_PORT_FILE;
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (file) {
    this.once("listening", () => {
      const address = this.address();
      if (address && typeof address === "object") {
        fs.writeFileSync(`${file}.part`, String(address.port));
        fs.renameSync(`${file}.part`, file);
      }
    });
  }
  return listen.apply(this, args);
};
