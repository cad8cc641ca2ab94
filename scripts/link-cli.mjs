console.log("link placeholder")
