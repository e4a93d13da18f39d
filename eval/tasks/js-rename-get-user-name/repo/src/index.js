'use strict'
const { getUserName, sortUsers } = require('./users')
const { welcomeBanner } = require('./greeting')
const { activeUsersReport } = require('./admin/report')

module.exports = { getUserName, sortUsers, welcomeBanner, activeUsersReport }
