'use strict'
const users = require('../users')

/**
 * Weekly report: one line per active user, sorted by name.
 * @param {Array<{active?: boolean}>} all
 */
function activeUsersReport (all) {
  const active = users.sortUsers(all.filter((u) => u.active))
  const lines = active.map((u) => `- ${users.getUserName(u)}`)
  return [`Active users: ${active.length}`, ...lines].join('\n')
}

module.exports = { activeUsersReport }
