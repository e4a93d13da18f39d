//! Shared test support: the scripted run and the payload strategies.
#![allow(dead_code)]

pub mod script;
pub mod strategies;
