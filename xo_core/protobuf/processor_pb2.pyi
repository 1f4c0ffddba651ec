from xo_core.protobuf import transaction_pb2 as _transaction_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TpRegisterRequest(_message.Message):
    __slots__ = ("family", "version", "namespaces", "max_occupancy", "protocol_version", "request_header_style")
    class TpProcessRequestHeaderStyle(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        HEADER_STYLE_UNSET: _ClassVar[TpRegisterRequest.TpProcessRequestHeaderStyle]
        EXPANDED: _ClassVar[TpRegisterRequest.TpProcessRequestHeaderStyle]
        RAW: _ClassVar[TpRegisterRequest.TpProcessRequestHeaderStyle]
    HEADER_STYLE_UNSET: TpRegisterRequest.TpProcessRequestHeaderStyle
    EXPANDED: TpRegisterRequest.TpProcessRequestHeaderStyle
    RAW: TpRegisterRequest.TpProcessRequestHeaderStyle
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    NAMESPACES_FIELD_NUMBER: _ClassVar[int]
    MAX_OCCUPANCY_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_HEADER_STYLE_FIELD_NUMBER: _ClassVar[int]
    family: str
    version: str
    namespaces: _containers.RepeatedScalarFieldContainer[str]
    max_occupancy: int
    protocol_version: int
    request_header_style: TpRegisterRequest.TpProcessRequestHeaderStyle
    def __init__(self, family: _Optional[str] = ..., version: _Optional[str] = ..., namespaces: _Optional[_Iterable[str]] = ..., max_occupancy: _Optional[int] = ..., protocol_version: _Optional[int] = ..., request_header_style: _Optional[_Union[TpRegisterRequest.TpProcessRequestHeaderStyle, str]] = ...) -> None: ...

class TpRegisterResponse(_message.Message):
    __slots__ = ("status", "protocol_version")
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSET: _ClassVar[TpRegisterResponse.Status]
        OK: _ClassVar[TpRegisterResponse.Status]
        ERROR: _ClassVar[TpRegisterResponse.Status]
    STATUS_UNSET: TpRegisterResponse.Status
    OK: TpRegisterResponse.Status
    ERROR: TpRegisterResponse.Status
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    status: TpRegisterResponse.Status
    protocol_version: int
    def __init__(self, status: _Optional[_Union[TpRegisterResponse.Status, str]] = ..., protocol_version: _Optional[int] = ...) -> None: ...

class TpUnregisterRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TpUnregisterResponse(_message.Message):
    __slots__ = ("status",)
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSET: _ClassVar[TpUnregisterResponse.Status]
        OK: _ClassVar[TpUnregisterResponse.Status]
        ERROR: _ClassVar[TpUnregisterResponse.Status]
    STATUS_UNSET: TpUnregisterResponse.Status
    OK: TpUnregisterResponse.Status
    ERROR: TpUnregisterResponse.Status
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: TpUnregisterResponse.Status
    def __init__(self, status: _Optional[_Union[TpUnregisterResponse.Status, str]] = ...) -> None: ...

class TpProcessRequest(_message.Message):
    __slots__ = ("header", "payload", "signature", "context_id", "header_bytes")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_ID_FIELD_NUMBER: _ClassVar[int]
    HEADER_BYTES_FIELD_NUMBER: _ClassVar[int]
    header: _transaction_pb2.TransactionHeader
    payload: bytes
    signature: str
    context_id: str
    header_bytes: bytes
    def __init__(self, header: _Optional[_Union[_transaction_pb2.TransactionHeader, _Mapping]] = ..., payload: _Optional[bytes] = ..., signature: _Optional[str] = ..., context_id: _Optional[str] = ..., header_bytes: _Optional[bytes] = ...) -> None: ...

class TpProcessResponse(_message.Message):
    __slots__ = ("status", "message", "extended_data")
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSET: _ClassVar[TpProcessResponse.Status]
        OK: _ClassVar[TpProcessResponse.Status]
        INVALID_TRANSACTION: _ClassVar[TpProcessResponse.Status]
        INTERNAL_ERROR: _ClassVar[TpProcessResponse.Status]
    STATUS_UNSET: TpProcessResponse.Status
    OK: TpProcessResponse.Status
    INVALID_TRANSACTION: TpProcessResponse.Status
    INTERNAL_ERROR: TpProcessResponse.Status
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    EXTENDED_DATA_FIELD_NUMBER: _ClassVar[int]
    status: TpProcessResponse.Status
    message: str
    extended_data: bytes
    def __init__(self, status: _Optional[_Union[TpProcessResponse.Status, str]] = ..., message: _Optional[str] = ..., extended_data: _Optional[bytes] = ...) -> None: ...
