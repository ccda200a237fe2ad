#!/bin/sh
# placeholder replaced below
