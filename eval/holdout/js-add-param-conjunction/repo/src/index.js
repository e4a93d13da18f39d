'use strict'
module.exports = { ...require('./format'), ...require('./filters') }
