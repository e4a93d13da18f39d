'use strict'
const http = require('node:http')
const { loadConfig } = require('./config')

function createServer (services = {}) {
  return http.createServer((req, res) => {
    const down = Object.keys(services).filter((name) => !services[name])
    res.writeHead(down.length ? 503 : 200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ ok: down.length === 0, down }))
  })
}

if (require.main === module) {
  const config = loadConfig()
  createServer({ api: true }).listen(config.port, config.host, () => {
    if (config.logLevel !== 'error') console.log(`listening on http://${config.host}:${config.port}`)
  })
}

module.exports = { createServer }
