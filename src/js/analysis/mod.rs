//! The analyses rules share, each a query over the [`super::model::JsModel`]
//! of one module: where a value flows, which result fields are read, what
//! strings a prompt can hold, why a call repeats, what bounds a loop, which
//! handlers let the SDK's signals through, what runs on replay.

pub mod catch;
pub mod dates;
pub mod effects;
pub mod exports;
pub mod flow;
pub mod gates;
pub mod isolation;
pub mod loops;
pub mod practices;
pub mod repeat;
pub mod replay;
pub mod results;
pub mod shell;
pub mod strings;
pub mod taint;
pub mod tasks;
pub mod undefined;
