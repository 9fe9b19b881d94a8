pub mod manifest;
pub mod markdown;
