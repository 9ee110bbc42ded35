const http = require("node:http");

const notes = new Map();

http
  .createServer((req, res) => {
    if (req.method === "GET" && req.url === "/notes") {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify([...notes.values()]));
      return;
    }
    res.statusCode = 404;
    res.end();
  })
  .listen(process.env.PORT || 8080);
