from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BlockInfoConfig(_message.Message):
    __slots__ = ("latest_block", "oldest_block", "target_count", "sync_tolerance")
    LATEST_BLOCK_FIELD_NUMBER: _ClassVar[int]
    OLDEST_BLOCK_FIELD_NUMBER: _ClassVar[int]
    TARGET_COUNT_FIELD_NUMBER: _ClassVar[int]
    SYNC_TOLERANCE_FIELD_NUMBER: _ClassVar[int]
    latest_block: int
    oldest_block: int
    target_count: int
    sync_tolerance: int
    def __init__(self, latest_block: _Optional[int] = ..., oldest_block: _Optional[int] = ..., target_count: _Optional[int] = ..., sync_tolerance: _Optional[int] = ...) -> None: ...

class BlockInfo(_message.Message):
    __slots__ = ("block_num", "previous_block_id", "signer_public_key", "header_signature", "timestamp")
    BLOCK_NUM_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_BLOCK_ID_FIELD_NUMBER: _ClassVar[int]
    SIGNER_PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    HEADER_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    block_num: int
    previous_block_id: str
    signer_public_key: str
    header_signature: str
    timestamp: int
    def __init__(self, block_num: _Optional[int] = ..., previous_block_id: _Optional[str] = ..., signer_public_key: _Optional[str] = ..., header_signature: _Optional[str] = ..., timestamp: _Optional[int] = ...) -> None: ...

class BlockInfoTxn(_message.Message):
    __slots__ = ("block", "target_count", "sync_tolerance")
    BLOCK_FIELD_NUMBER: _ClassVar[int]
    TARGET_COUNT_FIELD_NUMBER: _ClassVar[int]
    SYNC_TOLERANCE_FIELD_NUMBER: _ClassVar[int]
    block: BlockInfo
    target_count: int
    sync_tolerance: int
    def __init__(self, block: _Optional[_Union[BlockInfo, _Mapping]] = ..., target_count: _Optional[int] = ..., sync_tolerance: _Optional[int] = ...) -> None: ...
