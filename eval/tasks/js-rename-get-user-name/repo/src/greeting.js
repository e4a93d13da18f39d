'use strict'
const { getUserName } = require('./users')

function welcomeBanner (user, now = new Date()) {
  const hour = now.getHours()
  const part = hour < 12 ? 'morning' : hour < 18 ? 'afternoon' : 'evening'
  return `Good ${part}, ${getUserName(user)}!`
}

module.exports = { welcomeBanner }
