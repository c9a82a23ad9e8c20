// Typed exceptions thrown by core/. Every message is meant for the user: it names the
// file or option involved and what to do about it. Workers catch at their boundary and
// report one error per run; library code never exits or aborts the process.
#pragma once

#include <stdexcept>
#include <string>

namespace skytrace {

// Base of all Skytrace errors.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file is missing, unreadable or cannot be written.
class IoError : public Error {
 public:
  using Error::Error;
};

// A file was read but its content is not what the format requires (corrupt, truncated).
class FormatError : public Error {
 public:
  using Error::Error;
};

// A raster has no usable georeference (no geotransform or no CRS).
class GeoreferenceError : public FormatError {
 public:
  using FormatError::FormatError;
};

// An option or argument is out of its valid range; thrown by Options::check().
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// Model weights are missing or do not fit the model (key or shape mismatch).
class ModelError : public Error {
 public:
  using Error::Error;
};

// The user cancelled a long operation (through a progress callback or stop token).
class Cancelled : public Error {
 public:
  Cancelled() : Error("cancelled") {}
};

}  // namespace skytrace
